/**
 * SSRF through RDAP (issue "Money moves only for a delivered result"), with the production policy
 * (`allowPrivate: false`). The registry sits behind `registry.rebinding-hosts.net`, which DoH
 * resolves to a public address; the recording connector carries only that address to the loopback
 * fake and refuses every other attempt, so a refused URL shows up as a recorded attempt if it leaks.
 */
import { connect as netConnect, Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectTarget, SocketConnector } from '../../../../src/sources/public-fetch/node-transport.ts';
import type { RdapAnswer } from '../../../../src/sources/rdap/client.ts';
import { DAY_MS, NOW, type RdapWorld, startRdapWorld } from '../rdap/world.ts';

const STAND_IN = '93.184.215.14'; // what registry.rebinding-hosts.net resolves to
const HOSTS = 'rebinding-hosts.net';

/** Every connection attempt is recorded; only the public stand-in reaches a (loopback) socket. */
function recordingConnector(): { connect: SocketConnector; attempts: ConnectTarget[] } {
  const attempts: ConnectTarget[] = [];
  const connect: SocketConnector = (target) => {
    attempts.push(target);
    if (target.address === STAND_IN) return netConnect({ host: '127.0.0.1', port: target.port });
    const socket = new Socket();
    const refused = Object.assign(new Error(`connect ECONNREFUSED ${target.address}`), {
      code: 'ECONNREFUSED',
    });
    process.nextTick(() => socket.destroy(refused));
    return socket;
  };
  return { connect, attempts };
}

/** URL spellings and host names that hide an internal address, each aimed at a listening loopback port. */
function internalUrls(port: number): [label: string, url: string][] {
  const path = '/rdap/domain/REFERRED-REGISTRAR.COM';
  return [
    ['127.0.0.1', `http://127.0.0.1:${port}${path}`],
    ['[::1]', `http://[::1]:${port}${path}`],
    ['localhost', `http://localhost:${port}${path}`],
    ['sub.localhost', `http://rdap.localhost:${port}${path}`],
    ['2130706433', `http://2130706433:${port}${path}`],
    ['0177.0.0.1', `http://0177.0.0.1:${port}${path}`],
    ['0x7f.0.0.1', `http://0x7f.0.0.1:${port}${path}`],
    ['127.1', `http://127.1:${port}${path}`],
    ['0.0.0.0', `http://0.0.0.0:${port}${path}`],
    ['[::ffff:127.0.0.1]', `http://[::ffff:127.0.0.1]:${port}${path}`],
    ['[::]', `http://[::]:${port}${path}`],
    ['169.254.169.254', 'http://169.254.169.254/latest/meta-data/'],
    ['[fd00:ec2::254]', 'http://[fd00:ec2::254]/latest/meta-data/'],
    ['10.0.0.1', `http://10.0.0.1${path}`],
    ['credentials@127.0.0.1', `http://admin:hunter2@127.0.0.1:${port}${path}`],
    ['https 127.0.0.1', `https://127.0.0.1:${port}${path}`],
    ['name → 127.0.0.1', `http://loopback.${HOSTS}:${port}${path}`],
    ['name → ::1', `http://loopback6.${HOSTS}:${port}${path}`],
    ['name → ::ffff:127.0.0.1', `http://mapped.${HOSTS}:${port}${path}`],
    ['name → 0.0.0.0', `http://unspecified.${HOSTS}:${port}${path}`],
    ['name → 10.0.0.1', `http://private.${HOSTS}:${port}${path}`],
    ['name → 169.254.169.254', `http://metadata.${HOSTS}${path}`],
    ['CNAME → 127.0.0.1', `http://alias.${HOSTS}:${port}${path}`],
    ['expanded ::ffff:7f00:1', `http://[0:0:0:0:0:ffff:7f00:1]:${port}${path}`],
  ];
}

let world: RdapWorld;
let registrarPort: number;
let recorder: ReturnType<typeof recordingConnector>;

beforeEach(async () => {
  world = await startRdapWorld();
  registrarPort = Number(world.registry.registrar.url.port);
  recorder = recordingConnector();
  // The .com registry, reached by name through the public stand-in.
  const base = new URL(`/com/v1/`, world.registry.url);
  base.hostname = `registry.${HOSTS}`;
  world.bootstrap.services.push([['com'], [base.href]]);
});
afterEach(() => world.close());

const client = () => world.client(2_000, { allowPrivate: false, connect: recorder.connect });
const sourceStates = (answer: RdapAnswer) => answer.sources.map((s) => `${s.name}:${s.ok}`);
const CASES = internalUrls(0).map(([label]) => label);

describe('registrar referral to an internal address', () => {
  it(`has ${CASES.length} cases`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
  });

  it.each(CASES)('%s: never connected to; the registry data stands with a failed source', async (label) => {
    const url = new Map(internalUrls(registrarPort)).get(label) ?? '';
    world.registry.referralHref = url;
    const answer = await client().lookup('referred-registrar.com');
    if (!answer.ok || answer.value.kind !== 'registered') throw new Error(JSON.stringify(answer));
    expect(answer.value.registration.registrar).toEqual({ name: null, ianaId: null });
    expect(answer.value.registration.expiresAt).toEqual(new Date(NOW.getTime() + 200 * DAY_MS));
    expect(sourceStates(answer.value)).toEqual(['rdap-bootstrap:true', 'rdap:true', 'rdap-registrar:false']);
    // The only connection is the registry's; the internal listener saw nothing.
    expect(recorder.attempts.map((a) => a.address)).toEqual([STAND_IN]);
    expect(world.registry.registrar.requests).toHaveLength(0);
    expect(JSON.stringify(answer.value)).not.toMatch(/hunter2|admin:/);
  });
});

describe('control: the same harness with a public referral', () => {
  it('connects, strips the credentials, and reports the registrar', async () => {
    world.registry.referralHref = `http://rdap-user:s3cret@registry.${HOSTS}:${registrarPort}/rdap/domain/REFERRED-REGISTRAR.COM`;
    const answer = await client().lookup('referred-registrar.com');
    if (!answer.ok || answer.value.kind !== 'registered') throw new Error(JSON.stringify(answer));
    expect(answer.value.registration.registrar).toEqual({ name: 'Porkbun LLC', ianaId: '1861' });
    expect(recorder.attempts.map((a) => `${a.address}:${a.port}`)).toEqual([
      `${STAND_IN}:${world.registry.url.port}`,
      `${STAND_IN}:${registrarPort}`,
    ]);
    const [request] = world.registry.registrar.requests;
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers.host).toBe(`registry.${HOSTS}:${registrarPort}`);
    expect(answer.value.sources[2]?.url).toBe(`http://registry.${HOSTS}:${registrarPort}/`);
    expect(JSON.stringify(answer.value)).not.toMatch(/s3cret|rdap-user/);
  });
});

describe('bootstrap base at an internal address', () => {
  it.each(CASES)('%s: the lookup fails as an upstream failure without a connection', async (label) => {
    const base = (new Map(internalUrls(Number(world.registry.url.port))).get(label) ?? '').replace(
      /\/rdap\/domain\/.*$|\/latest\/meta-data\/$/,
      '/com/v1/',
    );
    world.bootstrap.services.push([['com'], [base]]);
    const answer = await client().lookup('healthy-shop.com');
    expect(answer).toMatchObject({ ok: false, failure: { code: 'blocked_address', source: 'rdap' } });
    expect(recorder.attempts).toEqual([]);
    expect(world.registry.requests).toHaveLength(0);
  });
});

describe('redirects under the policy', () => {
  it('refuses a registry redirect to loopback without connecting to it', async () => {
    world.registry.redirectTo = `http://127.0.0.1:${registrarPort}{path}`;
    const answer = await client().lookup('healthy-shop.com');
    expect(answer).toMatchObject({ ok: false, failure: { code: 'blocked_address', source: 'rdap' } });
    expect(recorder.attempts.map((a) => a.address)).toEqual([STAND_IN]);
  });

  it('pins each hop to the checked address, with Host naming the host', async () => {
    world.registry.redirectTo = `/hop/2{path}`;
    const answer = await client().lookup('healthy-shop.com');
    expect(answer).toMatchObject({ ok: true, value: { kind: 'registered' } });
    expect(recorder.attempts).toHaveLength(4);
    expect(recorder.attempts.every((a) => a.address === STAND_IN && !a.tls)).toBe(true);
    const hosts = new Set(world.registry.requests.map((r) => r.headers.host));
    expect([...hosts]).toEqual([`registry.${HOSTS}:${world.registry.url.port}`]);
  });
});
