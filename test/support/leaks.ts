import { capturedLogs, capturedResponses, knownSecrets } from './stack';

/**
 * Runs after every test file: no known secret (stack.ts: every secret the file's gateways held, and any a test
 * added) appears in any response body or log line the file's gateways produced.
 */
afterAll(() => {
  const texts = [...capturedResponses, ...capturedLogs];
  for (const secret of knownSecrets) {
    const leaked = texts.find((t) => t.includes(secret));
    expect(leaked === undefined ? 'no leak' : `leaked in: ${leaked.slice(0, 200)}`).toBe('no leak');
  }
});
