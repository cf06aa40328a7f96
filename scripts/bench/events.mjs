#!/usr/bin/env node
// Events on the stateful mock (issue 12, part 6): from the state change to the delivery.
// - events/wait: an event emitted while a client's long poll is held, to the client reading it;
// - numbers-api listen: an event emitted, to a loopback target receiving the agent's POST;
// - fan-out: 1,000 events through the agent to 3 targets, none lost (every target gets every id).
// Goal: p99 under 50 ms for both latencies. Prints BENCH lines (scripts/bench.mjs).
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const load = (file) => import(pathToFileURL(path.join(root, file)).href);
const { startMock } = await load('src/mock/start-mock.ts');
const { startListenAgent } = await load('src/listen/agent.ts');

const SAMPLES = 300;
const FAN_OUT_EVENTS = 1000;
const BURST = 100;
const GOAL_P99_MS = 50;

const report = (row) => console.log(`BENCH ${JSON.stringify({ bench: 'events', ...row })}`);
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (ms) => Math.round(ms * 100) / 100;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const mock = await startMock({ host: '127.0.0.1', port: 0 });
await mock.ready;
const simulator = mock.simulator;
const example = simulator.contract.example('waitForEvent', 200, 'messageReceivedSms');
let counter = 0;
/** A state change's event, as an inbound message emits it; returns its id. */
function emit(key) {
  const messageId = `msg_bench_${++counter}`;
  return simulator.withContext((ctx) =>
    ctx.emit(simulator.accountForKey(key), 'message.received', { ...example.data, messageId }, { id: messageId, type: 'message', url: null }),
  ).id;
}
async function untilHeld(key) {
  while (simulator.heldWaits(simulator.accountForKey(key)) === 0) await new Promise((resolve) => setImmediate(resolve));
}

function startTarget(onEvent) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      onEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: new URL(`http://127.0.0.1:${server.address().port}/hooks`),
        close: () => new Promise((done) => (server.closeAllConnections(), server.close(done))),
      }),
    ),
  );
}

try {
  // 1. events/wait: a client polling in a loop; each event is emitted while its wait is held.
  {
    const key = 'sk_live_bench_wait';
    const filters = { type: 'message.received' };
    const latencies = [];
    const wait = () =>
      fetch(new URL('/api/v1/events/wait', mock.url), {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ timeout: 30, filters }),
      }).then((response) => response.json());
    for (let i = 0; i < SAMPLES + 20; i++) {
      const answer = wait();
      await untilHeld(key);
      const started = performance.now();
      const id = emit(key);
      const event = await answer;
      if (event.id !== id) throw new Error(`events/wait answered ${event.id}, expected ${id}`);
      if (i >= 20) latencies.push(performance.now() - started); // the first 20 warm up
    }
    const p99 = percentile(latencies, 99);
    report({ metric: 'events/wait latency p50', value: round(percentile(latencies, 50)), unit: 'ms' });
    report({ metric: 'events/wait latency p99', value: round(p99), unit: 'ms', target: `< ${GOAL_P99_MS}`, pass: p99 < GOAL_P99_MS });
  }

  // 2. listen: the agent's POST reaching a loopback target.
  {
    const key = 'sk_live_bench_listen';
    let pending;
    const target = await startTarget((event) => pending?.(event));
    const agent = startListenAgent({ baseUrl: new URL(mock.url), apiKey: key, targets: [target.url], filters: { type: 'message.received' } });
    const latencies = [];
    for (let i = 0; i < SAMPLES + 20; i++) {
      await untilHeld(key);
      const arrived = new Promise((resolve) => (pending = resolve));
      const started = performance.now();
      const id = emit(key);
      const event = await arrived;
      if (event.id !== id) throw new Error(`the target got ${event.id}, expected ${id}`);
      if (i >= 20) latencies.push(performance.now() - started);
    }
    await agent.stop();
    await target.close();
    const p99 = percentile(latencies, 99);
    report({ metric: 'listen latency p50', value: round(percentile(latencies, 50)), unit: 'ms' });
    report({ metric: 'listen latency p99', value: round(p99), unit: 'ms', target: `< ${GOAL_P99_MS}`, pass: p99 < GOAL_P99_MS });
  }

  // 3. fan-out: 1,000 events to 3 targets, in bursts of 100 emitted at once.
  {
    const key = 'sk_live_bench_fanout';
    const received = [new Set(), new Set(), new Set()];
    const targets = await Promise.all(received.map((ids) => startTarget((event) => ids.add(event.id))));
    const agent = startListenAgent({ baseUrl: new URL(mock.url), apiKey: key, targets: targets.map((t) => t.url), filters: { type: 'message.received' } });
    const sent = [];
    const started = performance.now();
    await untilHeld(key);
    while (sent.length < FAN_OUT_EVENTS) {
      for (let i = 0; i < BURST && sent.length < FAN_OUT_EVENTS; i++) sent.push(emit(key));
      while (agent.summary().events < sent.length) await pause(1);
    }
    await agent.idle();
    const seconds = (performance.now() - started) / 1000;
    const summary = await agent.stop();
    await Promise.all(targets.map((t) => t.close()));
    const lost = received.reduce((sum, ids) => sum + sent.filter((id) => !ids.has(id)).length, 0);
    report({ metric: `fan-out: ${FAN_OUT_EVENTS} events x 3 targets, lost`, value: lost, target: '0', pass: lost === 0 && summary.dropped === 0 });
    report({ metric: 'fan-out throughput', value: Math.round(FAN_OUT_EVENTS / seconds), unit: 'events/s' });
  }
} finally {
  await mock.close();
}
