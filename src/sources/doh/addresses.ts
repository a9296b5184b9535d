/**
 * A and AAAA addresses of a name after CNAME chasing, for the live probe (which must connect to
 * what DNS says, not to what the OS resolver says).
 */
import { fail, type SourceResult, succeed } from '../failure.ts';
import { type DnsAnswer, recordsOf } from './answer.ts';
import type { DohClient } from './client.ts';

/** Most extra queries made when a resolver returns a CNAME chain without its target's records. */
const MAX_CHASE_QUERIES = 8;

/** IPv4 addresses first, then IPv6; an empty list for NXDOMAIN/NODATA. */
export async function resolveAddresses(client: DohClient, name: string): Promise<SourceResult<string[]>> {
  const [v4, v6] = await Promise.all([chase(client, name, 'A'), chase(client, name, 'AAAA')]);
  if (!v4.ok) return fail(v4.failure);
  if (!v6.ok) return fail(v6.failure);
  const addresses = [...recordsOf(v4.value, 'A'), ...recordsOf(v6.value, 'AAAA')].map(
    (record) => record.address,
  );
  return succeed(addresses);
}

async function chase(client: DohClient, name: string, type: 'A' | 'AAAA'): Promise<SourceResult<DnsAnswer>> {
  let answer = await client.query(name, type);
  for (let hop = 0; hop < MAX_CHASE_QUERIES; hop += 1) {
    if (!answer.ok || answer.value.records.length > 0 || answer.value.rcode !== 'NOERROR') return answer;
    const target = answer.value.cnames.at(-1);
    if (target === undefined) return answer;
    answer = await client.query(target, type);
  }
  return answer;
}
