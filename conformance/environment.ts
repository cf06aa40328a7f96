// Builds what every scenario of a run shares, from the run's config.
import { contractValidator } from '../src/contract/contract-validator.js';
import type { ConformanceConfig } from './config.js';
import { listOperations, loadDescription, type Json } from './description.js';
import { Fixtures } from './fixtures.js';
import { ConformanceHttp } from './http.js';
import { NamedLocks } from './limiter.js';
import { SendBudget } from './sends.js';
import type { Environment } from './scenario.js';

export function createEnvironment(config: ConformanceConfig, document: Json = loadDescription(config.descriptionPath)): Environment {
  const operations = listOperations(document);
  const http = new ConformanceHttp(config);
  return {
    config,
    document,
    operations,
    validator: contractValidator(document),
    http,
    fixtures: new Fixtures(http, operations),
    sends: new SendBudget(config.maxSends),
    locks: new NamedLocks(),
  };
}
