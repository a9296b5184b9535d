/** SPF one lookup under the RFC 7208 limit: Google Workspace, Microsoft 365, SendGrid, Mailchimp. */
import { bulkSenderSpf, microsoft365Spf, workspaceZone } from '../dns-providers.ts';
import type { Scenario } from '../scenario.ts';

const scenario: Scenario = {
  domain: 'spf-nine.net',
  about: 'SPF include chain of 9 DNS lookups: valid.',
  dns: {
    records: {
      ...workspaceZone(
        'spf-nine.net',
        'v=spf1 mx include:_spf.google.com include:spf.protection.outlook.com include:sendgrid.net include:servers.mcsv.net -all',
        'v=DMARC1; p=quarantine; rua=mailto:dmarc@spf-nine.net',
      ),
      ...microsoft365Spf,
      ...bulkSenderSpf,
    },
  },
};
export default scenario;
