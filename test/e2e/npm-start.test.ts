/**
 * The README's first command on a fresh clone: `npm start` with no payment configuration starts
 * the embedded chain and the service, and the client command it prints pays for a check. Only the
 * upstream variables point at the closed world (CI has no internet), and PORT picks a free port.
 */
import { type ChildProcess, exec, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWorld, type World } from '../world/index.ts';
import { type CaFile, writeCaFile } from '../world/test-ca.ts';

const execAsync = promisify(exec);
const STARTUP_TIMEOUT_MS = 45_000;

let world: World;
let ca: CaFile;
let service: ChildProcess;
let stdout = '';
let servicePid = 0;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves with the printed pay command once the service says it is listening. */
function waitForPayCommand(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no pay command within ${STARTUP_TIMEOUT_MS} ms:\n${stdout}`)),
      STARTUP_TIMEOUT_MS,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const command = /^\s*(X402_PRIVATE_KEY=0x[0-9a-f]{64} npm run -s cli -- .+)$/m.exec(stdout)?.[1];
      if (command && stdout.includes('"msg":"listening"')) {
        clearTimeout(timer);
        resolve(command.trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${stdout}`)));
  });
}

beforeAll(async () => {
  world = await startWorld();
  ca = await writeCaFile(world.site.caPem);
}, 30_000);

afterAll(async () => {
  // Only reached with the service still up when the test failed part way: stop it and its chain.
  if (service && service.exitCode === null) {
    if (servicePid > 0) process.kill(servicePid, 'SIGTERM');
    service.kill('SIGTERM');
  }
  await world?.close();
  await ca?.remove();
});

it('npm start pays for the printed check on the embedded chain and stops cleanly', async () => {
  const port = await freePort();
  service = spawn('npm', ['start'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      NODE_EXTRA_CA_CERTS: ca.path,
      ...world.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const command = await waitForPayCommand(service);
  expect(command).toContain(`--url http://localhost:${port}`);

  // The real process serves the MCP endpoint too, with the catalog's six tools.
  const mcp = await fetch(`http://localhost:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(mcp.status).toBe(200);
  const tools = ((await mcp.json()) as { result: { tools: { name: string }[] } }).result.tools.map(
    (t) => t.name,
  );
  expect(tools.sort()).toEqual([
    'check_cert',
    'check_dns',
    'check_domain_expiry',
    'pricing',
    'site_health',
    'validate_target',
  ]);

  const paid = await execAsync(command, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    timeout: 60_000,
  });
  const result = JSON.parse(paid.stdout) as {
    domain: string;
    disclaimer: string;
    certificate: { issuer: string } | null;
  };
  // Upstreams at the world: the banner names a world domain, whose check finds a certificate.
  expect(command).toContain(' cert healthy-shop.com ');
  expect(result.domain).toBe('healthy-shop.com');
  expect(result.certificate?.issuer).toBeTruthy();
  expect(result.disclaimer).toBe('Results are data, not guarantees.');
  expect(paid.stderr).toMatch(/0x[0-9a-f]{64}/); // the settlement transaction hash
  expect(world.crtsh.requests.length).toBeGreaterThan(0); // the check really ran against the world

  const anvilPid = Number(/"anvil_pid":(\d+)/.exec(stdout)?.[1]);
  servicePid = Number(/"pid":(\d+)[^\n]*"msg":"listening"/.exec(stdout)?.[1]);
  expect(anvilPid).toBeGreaterThan(0);
  expect(servicePid).toBeGreaterThan(0);
  const exited = new Promise<number | null>((resolve) => service.on('exit', resolve));
  // SIGTERM to the service itself, as a process manager would; npm passes its exit code through.
  process.kill(servicePid, 'SIGTERM');
  expect(await exited).toBe(0);
  expect(stdout).toContain('"msg":"shutting down"');
  expect(() => process.kill(anvilPid, 0)).toThrow(); // the embedded chain stopped with it
}, 120_000);
