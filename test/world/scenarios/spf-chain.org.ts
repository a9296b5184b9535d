/** SPF exactly at the RFC 7208 limit of 10 DNS lookups, through nested includes. */
import { bulkSenderSpf, microsoft365Spf, workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'spf-chain.org',
  about: 'SPF include chain of exactly 10 DNS lookups: still valid.',
  dns: {
    records: {
      ...workspaceZone(
        'spf-chain.org',
        'v=spf1 mx include:_spf.google.com include:spf.protection.outlook.com include:sendgrid.net include:servers.mcsv.net include:mail.zendesk.com -all',
        'v=DMARC1; p=reject; rua=mailto:dmarc@spf-chain.org',
      ),
      ...microsoft365Spf,
      ...bulkSenderSpf,
    },
  },
};
export default scenario;
