/**
 * Setup of the unit project: a unit test opens no socket and starts no process, so the project
 * runs in seconds with nothing to wait for. Listening, connecting (fetch included: undici connects
 * through `net`) and spawning throw instead, naming what the test tried; such a test belongs in
 * test/integration/.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

function refuse(what: string): never {
  throw new Error(`a unit test may not ${what}: move the test to test/integration/`);
}

net.Server.prototype.listen = function listen(): never {
  refuse('listen on a socket');
};
net.Socket.prototype.connect = function connect(): never {
  refuse('open a socket');
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const)
  Object.assign(childProcess, { [name]: () => refuse(`start a process (${name})`) });
// Named imports of node:child_process (`import { spawn } from ...`) see the replacements too.
syncBuiltinESMExports();
