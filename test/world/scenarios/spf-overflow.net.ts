/** SPF one lookup over the RFC 7208 limit: receivers answer permerror and SPF fails for all mail. */
import { bulkSenderSpf, microsoft365Spf, workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'spf-overflow.net',
  about: 'SPF include chain of 11 DNS lookups: spf.too_many_lookups.',
  dns: {
    records: {
      ...workspaceZone(
        'spf-overflow.net',
        'v=spf1 mx a include:_spf.google.com include:spf.protection.outlook.com include:sendgrid.net include:servers.mcsv.net include:mail.zendesk.com ~all',
        'v=DMARC1; p=quarantine; pct=50; rua=mailto:dmarc@spf-overflow.net',
      ),
      ...microsoft365Spf,
      ...bulkSenderSpf,
    },
  },
};
export default scenario;
