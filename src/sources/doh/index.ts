/** What the rest of the app may use from the DoH source. */

export { resolveAddresses } from './addresses.ts';
export type { DnsAnswer, DnsRecord, DnsRecordType } from './answer.ts';
export { recordsOf, txtOf } from './answer.ts';
export type { DohClient, DohClientDeps, DohQueryOptions } from './client.ts';
export { createDohCache, createDohClient, DOH_SOURCE, DOH_TIMEOUT_MS } from './client.ts';
export type { DnsFacts } from './gather.ts';
export { gatherDns } from './gather.ts';
