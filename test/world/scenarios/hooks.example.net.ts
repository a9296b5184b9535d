/** The README's webhook host: a receiver's name that resolves, so the README's purchase line runs as written. */
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'hooks.example.net',
  about:
    "A webhook receiver's host, on loopback (admitted with PROBE_ALLOW_PRIVATE, as the world runs): a purchase naming it is sold.",
  dns: { records: { 'hooks.example.net': { A: ['127.0.0.1'] } } },
};
export default scenario;
