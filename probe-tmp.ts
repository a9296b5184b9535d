import pino from 'pino';
import { loadConfig } from './src/config.ts';
import { createService } from './src/service.ts';
import { nodeReach } from './src/sources/node-reach.ts';
const svc = createService(loadConfig({ LOG_LEVEL: 'silent', X402_PAY_TO: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', X402_FACILITATOR_URL: 'http://127.0.0.1:9' }), { logger: pino({ level: 'silent' }), reach: nodeReach() } as never);
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_target', arguments: { domain: 'example.com' } } };
const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
for (const [name, body] of [['init', init], ['list', list], ['call', call]] as const) {
  for (let i = 0; i < 5; i++) await svc.app.request('/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
  const t = performance.now();
  for (let i = 0; i < 100; i++) { const r = await svc.app.request('/mcp', { method: 'POST', headers, body: JSON.stringify(body) }); await r.text(); }
  console.log(name, ((performance.now() - t) / 100).toFixed(2), 'ms');
}
process.exit(0);
