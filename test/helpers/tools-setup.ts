// vitest's globalSetup: the folders with their own install that the tests import from
// (scripts/tools-install.mjs), installed before any test file runs when missing or stale, so a
// fresh clone's `npm ci && npm test` runs every test and skips none. The renderer matrix
// (RENDERED_DOCS=1, `npm run test:renderers`) adds Scalar and Elements.
import { ensureTools, TEST_TOOLS } from '../../scripts/tools-install.mjs';

export default function setup(): void {
  ensureTools([...TEST_TOOLS, ...(process.env.RENDERED_DOCS === '1' ? ['renderers'] : [])]);
}
