/**
 * Debian's nginx in front of a loopback service with nginx's default proxy settings: only
 * `proxy_pass`, so `proxy_buffer_size` is one memory page (4 KiB here), `large_client_header_buffers`
 * 4 × 8 KiB and the upstream spoken to in HTTP/1.0, as a reverse proxy an operator sets up first.
 * One process (`master_process off`) of the invoking user, its files in a temporary directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onFreePorts } from './service-process.ts';

export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const STARTUP_TIMEOUT_MS = 20_000;

export interface Nginx {
  /** `http://127.0.0.1:<port>`. */
  url: URL;
  /** What nginx wrote to its error log so far. */
  errors(): Promise<string>;
  close(): Promise<void>;
}

export async function startNginx(upstream: URL): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'nginx-'));
  try {
    return await onFreePorts(1, ([port]) => startOn(dir, upstream, port as number));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function startOn(dir: string, upstream: URL, port: number): Promise<Nginx> {
  const conf = join(dir, 'nginx.conf');
  const log = join(dir, 'error.log');
  await writeFile(
    conf,
    `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${log} warn;
events {}
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass ${upstream.origin};
    }
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', log], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = new URL(`http://127.0.0.1:${port}`);
  const readErrors = () => readFile(log, 'utf8').catch(() => '');
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) {
      const why = `${stderr}${await readErrors()}`;
      throw new Error(why.includes('Address already in use') ? `port ${port} is already in use` : why);
    }
    const up = await fetch(new URL('/health', url)).then(
      (res) => res.status > 0,
      () => false,
    );
    if (up) break;
    if (performance.now() - started > STARTUP_TIMEOUT_MS) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not answer within ${STARTUP_TIMEOUT_MS} ms: ${stderr}${await readErrors()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    errors: readErrors,
    async close() {
      child.kill('SIGQUIT');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
