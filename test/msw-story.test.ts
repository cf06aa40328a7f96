// The Storybook-style story of test/fixtures/msw-story.ts, run the way msw-storybook-addon runs
// one in Node: the meta's `parameters.msw.handlers` on setupServer, the story's loaders, then its
// render. Each story reaches the outcome it sets up (a send, and the documented 402 of an empty
// wallet), which is what a story on the HTTP mock would show.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import meta, { api, Sends, WalletEmpty } from './fixtures/msw-story.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => {
  server.close();
  api.control.stop();
});

interface Story {
  args: { apiKey: string };
  loaders?: Array<() => Promise<unknown>>;
}

async function runStory(story: Story): Promise<string> {
  server.resetHandlers(...meta.parameters.msw.handlers);
  for (const loader of story.loaders ?? []) await loader();
  return meta.render(story.args);
}

describe('a Storybook-style story over the in-process mock', () => {
  it('Sends: the message is sent from the seeded number', async () => {
    expect(await runStory(Sends)).toMatch(/^Sent msg_/);
  });

  it("WalletEmpty: the loader empties the story's wallet, and the send gets the documented 402", async () => {
    const documented = api.simulator.contract.example('sendMessage', 402) as { error: string };
    expect(await runStory(WalletEmpty)).toBe(`Could not send: ${documented.error}`);
  });
});
