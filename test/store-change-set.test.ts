// What a run changed in a history list, as the file store writes it (src/store/change-set.ts):
// an append is written as the records appended, never the list; anything else a rule can do to a
// list (a trim of the oldest, an element changed or replaced, an insert at the front, a reorder, a
// pop) is told apart from an append. Each case is a run on the tracker's view, its changes written
// out as the journal writes them and applied to a copy of the state as it was: the copy must be
// the state as it is. An append told from the list's first length alone, without noticing a write
// to what was there, would get the insert, the reorder and the replacement wrong.
import { describe, expect, it } from 'vitest';
import { applyChanges, trackChanges } from '../src/store/change-set.js';
import { emptyState, type AccountState, type SimState } from '../src/simulator/state.js';

type Message = { id: string; body: string };
const message = (id: string): Message => ({ id, body: `body ${id}` });

/** A state with one account holding `count` messages. */
function stateWith(count: number): SimState {
  const state = emptyState();
  state.accounts['acct_1'] = { id: 'acct_1', messages: Array.from({ length: count }, (_, i) => message(`m${i}`)) } as unknown as AccountState;
  return state;
}

/** Runs `change` on the tracker's view of a state of `count` messages; the changes, written out and read back, applied to the state as it was. */
function replayed(count: number, change: (messages: Message[]) => void): { applied: unknown; actual: unknown; kinds: string[] } {
  const state = stateWith(count);
  const before = JSON.parse(JSON.stringify(state)) as SimState;
  const tracker = trackChanges(state);
  change(tracker.view.accounts['acct_1']!.messages as unknown as Message[]);
  const changes = JSON.parse(JSON.stringify(tracker.changes())) as ReturnType<typeof tracker.changes>;
  applyChanges(before, changes);
  return { applied: before, actual: JSON.parse(JSON.stringify(state)), kinds: changes.map((change) => change[0]) };
}

describe('a history list: appends written as the records appended, every other change told apart', () => {
  it.each([
    ['push', 3, (list: Message[]) => list.push(message('new'))],
    ['push to an empty list', 0, (list: Message[]) => list.push(message('new'))],
    ['push, then change the appended record', 3, (list: Message[]) => (list.push(message('new')), (list[3]!.body = 'edited'))],
  ])('%s: an append', (_name, count, change) => {
    const { applied, actual, kinds } = replayed(count, change);
    expect(applied).toEqual(actual);
    expect(kinds).toEqual(['a']);
  });

  it.each([
    ['a record changed in place, then a push', 3, (list: Message[]) => ((list[0]!.body = 'edited'), list.push(message('new')))],
    ['a trim of the oldest and a push', 5, (list: Message[]) => (list.splice(0, 2), list.push(message('new')))],
    ['a push, then a trim', 5, (list: Message[]) => (list.push(message('new')), list.splice(0, 2))],
    ['an insert at the front', 3, (list: Message[]) => list.unshift(message('first'))],
    ['a reorder', 4, (list: Message[]) => list.reverse()],
    ['a record replaced', 3, (list: Message[]) => (list[1] = message('other'))],
    ['a pop of a record that was there', 3, (list: Message[]) => list.pop()],
    ['a push and a pop of more than it pushed', 3, (list: Message[]) => (list.push(message('new')), list.pop(), list.pop())],
    ['emptied', 3, (list: Message[]) => (list.length = 0)],
  ])('%s', (_name, count, change) => {
    const { applied, actual } = replayed(count, change);
    expect(applied).toEqual(actual);
  });
});
