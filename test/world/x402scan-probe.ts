/**
 * x402scan's probe (`@agentcash/discovery`) of a paid POST route, as its registration runs it: the
 * 402 it gets for a sample body, read for the endpoint's payment and schemas. The warnings it
 * raises for the POST method (none, for a route an agent can buy from without help).
 */
import { checkEndpointSchema, getWarningsForL3 } from '@agentcash/discovery';
import { expect } from 'vitest';

export async function probeWarnings(
  url: URL,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const checked = await checkEndpointSchema({ url: url.href, probe: true, sampleInputBody: body, headers });
  expect(checked.found).toBe(true);
  if (!checked.found) return [];
  const post = checked.advisories.find((advisory) => advisory.method === 'POST');
  expect(post?.source).toBe('probe');
  return getWarningsForL3(post ?? null);
}
