/** Leftovers around renewals: stale DNS-01 tokens, an expired and a quoted DNS-PERSIST-01 record. */
import type { Scenario } from '../scenario.ts';

const DAY_S = 86_400;
/** `persistUntil` three days before the world starts: already expired. */
export const EXPIRED_PERSIST_UNTIL = Math.floor(Date.now() / 1000) - 3 * DAY_S;

const scenario: Scenario = {
  domain: 'leftover-token.com',
  about:
    'Two DNS-01 tokens left at _acme-challenge; a DNS-PERSIST-01 record past its persistUntil and one pasted with literal quotes.',
  dns: {
    records: {
      'leftover-token.com': {
        A: ['192.0.2.91'],
        NS: ['ns1.leftover-token.com', 'ns2.leftover-token.com'],
        MX: [{ priority: 10, host: 'mail.leftover-token.com' }],
        TXT: ['v=spf1 ip4:192.0.2.91 -all'],
        CAA: [{ tag: 'issue', value: 'letsencrypt.org' }],
      },
      '_dmarc.leftover-token.com': { TXT: ['v=DMARC1; p=reject; rua=mailto:dmarc@leftover-token.com'] },
      '_acme-challenge.leftover-token.com': {
        TXT: ['LoqXcYV8q5ONbJQxbmR7SCTNo3tiAXDfowyjxAjEuX0', 'qS1QnMf8GS5jN5tMq4vT_yKq3pP0t8c1uBvX2wYhZkE'],
      },
      '_validation-persist.leftover-token.com': {
        TXT: [
          `letsencrypt.org; accounturi=https://acme-v02.api.letsencrypt.org/acme/acct/99; persistUntil=${EXPIRED_PERSIST_UNTIL}`,
          '"letsencrypt.org; accounturi=https://acme-v02.api.letsencrypt.org/acme/acct/99"',
        ],
      },
    },
  },
};
export default scenario;
