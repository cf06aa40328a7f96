// Rule 1 of the local fan-out target (part 6): only http(s) URLs on 127.0.0.1, 0.0.0.0, localhost,
// ::1 or [::1]; everything else refused with a clear message, look-alikes included.
import { describe, expect, it } from 'vitest';
import { runEventsCli } from '../src/event-source/cli.js';
import { loopbackRule, parseTargetUrl, TargetUrlError } from '../src/delivery/loopback-url.js';
import { captureIo, startTarget } from './helpers/event-source-target.js';

describe('the allowed hosts and schemes come from the AsyncAPI description', () => {
  it('are exactly those of part 6', () => {
    const rule = loopbackRule();
    expect([...rule.hosts].sort()).toEqual(['0.0.0.0', '127.0.0.1', '::1', 'localhost'].sort());
    expect([...rule.protocols].sort()).toEqual(['http:', 'https:']);
  });
});

describe('accepted', () => {
  it.each([
    'http://127.0.0.1:3000/webhooks',
    'https://127.0.0.1:3443/webhooks',
    'http://0.0.0.0:8080/',
    'http://localhost:3000/api/events?source=numbers',
    'http://LOCALHOST:3000/x',
    'http://[::1]:3000/hook',
    'https://[::1]/hook',
    'http://127.0.0.1/',
  ])('%s', (url) => {
    expect(parseTargetUrl(url).href).toBe(new URL(url).href);
  });
});

describe('refused, with the reason', () => {
  it.each([
    ['http://127.0.0.1.example.com/hook', 'not a loopback URL'],
    ['http://localhost.evil/hook', 'not a loopback URL'],
    ['http://localhost.:3000/hook', 'not a loopback URL'],
    ['http://127.0.0.1@evil.com/hook', 'not a loopback URL: its host is "evil.com"'],
    ['http://localhost:3000@evil.com/hook', 'not a loopback URL: its host is "evil.com"'],
    ['http://evil.com#@127.0.0.1/', 'not a loopback URL: its host is "evil.com"'],
    ['http://evil.com/?next=http://127.0.0.1', 'not a loopback URL'],
    ['http://evil.com\\@127.0.0.1/', 'not a loopback URL'],
    ['http://user:pass@localhost:3000/hook', 'credentials in the URL are not supported'],
    ['http://127.0.0.2:3000/', 'not a loopback URL'],
    ['http://10.0.0.5/hook', 'not a loopback URL'],
    ['http://[::ffff:127.0.0.1]/hook', 'not a loopback URL'],
    ['http://[::2]/hook', 'not a loopback URL'],
    ['http://example.com/hook', 'not a loopback URL'],
    ['ftp://127.0.0.1/hook', 'uses the ftp scheme'],
    ['ws://localhost:3000/hook', 'uses the ws scheme'],
    ['file:///etc/passwd', 'uses the file scheme'],
    ['127.0.0.1:3000/hook', 'is not a URL'],
    ['localhost:3000/hook', 'has no http:// or https:// in front'],
    ['localhost/hook', 'is not a URL'],
    ['', 'is not a URL'],
  ])('%s', (url, reason) => {
    expect(() => parseTargetUrl(url)).toThrow(TargetUrlError);
    expect(() => parseTargetUrl(url)).toThrow(reason);
  });

  it('the CLI refuses before sending anything: exit 2 and the reason on stderr', async () => {
    const handler = await startTarget([], 200);
    try {
      // The look-alike would resolve nowhere; the real handler proves nothing was sent to loopback either.
      const io = captureIo();
      const code = await runEventsCli(['send', `http://127.0.0.1.example.com:${handler.port}/hooks`, 'messageReceivedSms'], io);
      expect(code).toBe(2);
      expect(io.err()).toContain('is not a loopback URL: its host is "127.0.0.1.example.com"');
      expect(io.err()).toContain('127.0.0.1, 0.0.0.0, localhost, ::1, [::1]');
      expect(handler.received).toHaveLength(0);
    } finally {
      await handler.close();
    }
  });

  it('localhost is reached, and only on loopback', async () => {
    const handler = await startTarget([200]);
    try {
      const io = captureIo();
      expect(await runEventsCli(['send', `http://localhost:${handler.port}/hooks`, 'webhookPing'], io)).toBe(0);
      expect(handler.received).toHaveLength(1);
    } finally {
      await handler.close();
    }
  });
});
