/**
 * Charged if and only if delivered, on the Worker: the same cases as on Node (charged-iff-delivered.ts)
 * over HTTP and MCP against the Worker in local workerd, settling through its settler object behind
 * the RPC fault proxy. The client-abort cases are left to the Node suites: local workerd never tells
 * a Worker that its client went away (`request.signal` does not abort there), so the Worker cannot
 * act on it; on Cloudflare `request.signal` carries it (README, "Deploy to the edge").
 */
import { describeChargedIffDelivered, PAYMENT_CASES } from './charged-iff-delivered.ts';

const cases = PAYMENT_CASES.filter((paymentCase) => paymentCase.abortWhen === undefined);

describeChargedIffDelivered(
  'http',
  'Worker, HTTP: the payer is charged the price if and only if the result was delivered',
  {
    runtime: 'edge',
    cases,
  },
);

describeChargedIffDelivered(
  'mcp',
  'Worker, MCP: the payer is charged the price if and only if the result was delivered',
  {
    runtime: 'edge',
    cases,
  },
);
