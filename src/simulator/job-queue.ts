// The simulator's planned steps (the processes of part 3: a delivery, a call's next move, a
// review, a period end), due in time order and, at the same time, in the order they were planned.
//
// `state.jobs` is a binary min-heap on (due time, order planned), so it is written to the state
// file as it is: planning and taking a step cost a few comparisons however many are planned (a
// burst of sends plans thousands; a sorted array paid a shift of the whole queue per step).
import type { Job, SimState } from './state.js';

/** A step as a module plans it; its place among steps due at the same time is given here. */
export type PlannedJob = Omit<Job, 'seq'>;

/** Told of every step planned and taken in one state (a store's view: src/store/change-set.ts). */
export interface JobObserver {
  planned(job: Job): void;
  removed(job: Job): void;
}

/**
 * The one state observed and its observer: a store observes the view of the run it starts next,
 * and runs never overlap (a WeakMap of every view ever observed cost a run a third of its tracking).
 */
let observed: { state: SimState; observer: JobObserver } | undefined;
const observerOf = (state: SimState): JobObserver | undefined => (observed?.state === state ? observed.observer : undefined);

/** Tells `observer` of every step planned or taken in `state` from now on, until another state is observed. */
export function observeJobs(state: SimState, observer: JobObserver): void {
  observed = { state, observer };
}

const before = (a: Job, b: Job): boolean => a.at < b.at || (a.at === b.at && a.seq! < b.seq!);

function siftUp(jobs: Job[], index: number): void {
  const job = jobs[index]!;
  while (index > 0) {
    const parent = (index - 1) >>> 1;
    if (!before(job, jobs[parent]!)) break;
    jobs[index] = jobs[parent]!;
    index = parent;
  }
  jobs[index] = job;
}

function siftDown(jobs: Job[], index: number): void {
  const job = jobs[index]!;
  const half = jobs.length >>> 1;
  while (index < half) {
    let child = 2 * index + 1;
    if (child + 1 < jobs.length && before(jobs[child + 1]!, jobs[child]!)) child++;
    if (!before(jobs[child]!, job)) break;
    jobs[index] = jobs[child]!;
    index = child;
  }
  jobs[index] = job;
}

function heapify(jobs: Job[]): void {
  for (let index = (jobs.length >>> 1) - 1; index >= 0; index--) siftDown(jobs, index);
}

/** Plans `job`: it runs after every step due before it or at the same time and planned earlier. */
export function planJob(state: SimState, job: PlannedJob): void {
  const planned: Job = { ...job, seq: (state.jobSeq = (state.jobSeq ?? 0) + 1) };
  state.jobs.push(planned);
  siftUp(state.jobs, state.jobs.length - 1);
  observerOf(state)?.planned(planned);
}

/** When the next step falls due (simulated ms), or undefined when none is planned. */
export function nextDueAt(state: SimState): number | undefined {
  return state.jobs[0]?.at;
}

/** Takes the next step out of the queue when it is due by `now`, else undefined. */
export function takeDue(state: SimState, now: number): Job | undefined {
  const jobs = state.jobs;
  const first = jobs[0];
  if (!first || first.at > now) return undefined;
  const last = jobs.pop()!;
  if (jobs.length > 0) {
    jobs[0] = last;
    siftDown(jobs, 0);
  }
  observerOf(state)?.removed(first);
  return first;
}

/** Removes every planned step that `matches` (a step unscheduled, a deleted account's steps). */
export function dropJobs(state: SimState, matches: (job: Job) => boolean): void {
  const observer = observerOf(state);
  const kept: Job[] = [];
  for (const job of state.jobs) {
    if (!matches(job)) kept.push(job);
    else observer?.removed(job);
  }
  heapify(kept);
  state.jobs = kept;
}

/** Adds steps planned elsewhere (a journal read back, another process's view), keeping their `seq`. */
export function addJobs(state: SimState, jobs: readonly Job[]): void {
  for (const job of jobs) {
    state.jobs.push(job);
    siftUp(state.jobs, state.jobs.length - 1);
    if ((job.seq ?? 0) > (state.jobSeq ?? 0)) state.jobSeq = job.seq;
  }
}

/**
 * Makes a loaded state's queue a heap. A state file written before the queue kept `seq` holds
 * its steps sorted by time: they are numbered in that order, which keeps it.
 */
export function orderJobs(state: SimState): void {
  let seq = state.jobSeq ?? 0;
  for (const job of state.jobs) seq = Math.max(seq, job.seq ?? 0);
  for (const job of state.jobs) job.seq ??= ++seq;
  state.jobSeq = seq;
  heapify(state.jobs);
}
