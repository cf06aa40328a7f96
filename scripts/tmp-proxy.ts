import { startBreakingProxy } from '../test/helpers/breaking-proxy.js';
const proxy = await startBreakingProxy(process.argv[2]!);
proxy.rules.push({ on: 'GET /__mock/about', answer: (a) => ({ ...a, status: 404, body: { error: 'No such route' } }) });
console.log(proxy.url);
