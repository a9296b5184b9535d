/**
 * SSRF refusal, proven with a connector that records every connection attempt and fails it with
 * ECONNREFUSED instead of opening a socket: no packet ever leaves the test, not even to loopback.
 */
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { succeed } from '../../../../src/sources/failure.ts';
import type { ProbeConnector, ProbeTarget } from '../../../../src/sources/probe/pinned-request.ts';
import { createProbe } from '../../../../src/sources/probe/probe.ts';
import { ALLOWED_ADDRESSES, REFUSED_ADDRESSES } from './address-cases.ts';

const DOMAIN = 'intranet-portal.com';
const PUBLIC_ADDRESS = '93.184.215.14';

/** A connector that records the target and fails the attempt as a refused connection. */
function recordingConnector(): { connect: ProbeConnector; attempts: ProbeTarget[] } {
  const attempts: ProbeTarget[] = [];
  const connect: ProbeConnector = (target) => {
    attempts.push(target);
    const socket = new Socket();
    const refused = Object.assign(new Error(`connect ECONNREFUSED ${target.address}:${target.port}`), {
      code: 'ECONNREFUSED',
    });
    process.nextTick(() => socket.destroy(refused));
    return socket;
  };
  return { connect, attempts };
}

function probeResolvingTo(addresses: readonly string[], allowPrivate = false) {
  const recorder = recordingConnector();
  const probe = createProbe({
    resolve: async () => succeed([...addresses]),
    port: 443,
    allowPrivate,
    connect: recorder.connect,
  });
  return { probe, attempts: recorder.attempts };
}

describe('probe SSRF refusal', () => {
  it('refuses a domain whose only A record is private, without a connection attempt', async () => {
    const { probe, attempts } = probeResolvingTo(['10.0.0.5']);
    expect(await probe(DOMAIN)).toMatchObject({ ok: false, http_status: null, error: 'blocked_address' });
    expect(attempts).toEqual([]);
  });

  it(`refuses when every address is refused (${REFUSED_ADDRESSES.length} addresses), never passing one to the connector`, async () => {
    const { probe, attempts } = probeResolvingTo(REFUSED_ADDRESSES);
    expect(await probe(DOMAIN)).toMatchObject({ ok: false, error: 'blocked_address' });
    expect(attempts).toEqual([]);
  });

  it.each(REFUSED_ADDRESSES)(
    'never connects to %j, even when listed before a public address',
    async (refused) => {
      const { probe, attempts } = probeResolvingTo([refused, PUBLIC_ADDRESS]);
      expect(await probe(DOMAIN)).toMatchObject({ ok: false, error: 'refused' });
      expect(attempts.map((target) => target.address)).toEqual([PUBLIC_ADDRESS]);
    },
  );

  it('of one public and one private address, attempts only the public one, with SNI set to the domain', async () => {
    const { probe, attempts } = probeResolvingTo(['192.168.10.20', PUBLIC_ADDRESS]);
    expect(await probe(DOMAIN)).toMatchObject({ ok: false, http_status: null, error: 'refused' });
    expect(attempts).toEqual([
      { address: PUBLIC_ADDRESS, port: 443, servername: DOMAIN, secureContext: expect.anything() },
    ]);
  });

  it.each(ALLOWED_ADDRESSES)('attempts the allowed address %j', async (allowed) => {
    const { probe, attempts } = probeResolvingTo(['127.0.0.1', allowed]);
    await probe(DOMAIN);
    expect(attempts.map((target) => target.address)).toEqual([allowed]);
  });

  it('with PROBE_ALLOW_PRIVATE, attempts loopback (the test world needs it)', async () => {
    const { probe, attempts } = probeResolvingTo(['127.0.0.1'], true);
    expect(await probe(DOMAIN)).toMatchObject({ ok: false, error: 'refused' });
    expect(attempts.map((target) => target.address)).toEqual(['127.0.0.1']);
  });

  it('with PROBE_ALLOW_PRIVATE, still refuses cloud metadata and unparsable addresses', async () => {
    const { probe, attempts } = probeResolvingTo(
      [
        '169.254.169.254',
        'fd00:ec2::254',
        '::ffff:a9fe:a9fe',
        '64:ff9b::a9fe:a9fe',
        '168.63.129.16',
        'localhost',
        '127.1',
      ],
      true,
    );
    expect(await probe(DOMAIN)).toMatchObject({ ok: false, error: 'blocked_address' });
    expect(attempts).toEqual([]);
  });
});
