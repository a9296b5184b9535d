/**
 * The reference documentation, named on the page at `/` and in `/llms.txt`. It lives in the
 * service's source repository (README.md indexes it), not in the service: a deployment serves
 * neither the files nor a known address of its repository, so the documents name them by path.
 */
export const DOCUMENTATION: readonly { path: `${string}.md`; about: string }[] = [
  {
    path: 'docs/paying.md',
    about: 'the payment rules, the x402 flow, MCP, and what the payer gets when something fails',
  },
  { path: 'docs/discovery.md', about: 'the machine-readable documents' },
  { path: 'docs/checks/validation.md', about: 'domain validation and normalization' },
  { path: 'docs/checks/cert.md', about: 'the certificate check: CT answers, the CA renewal window (ARI)' },
  { path: 'docs/checks/dns.md', about: 'the DNS check: time budget, SPF, DMARC, renewal readiness' },
  { path: 'docs/checks/expiry.md', about: 'the expiry check: RDAP, findings' },
  { path: 'docs/checks/site-health.md', about: 'site health and the 64-day certificate note' },
  { path: 'docs/configuration.md', about: 'every variable of a deployment' },
  { path: 'docs/operations.md', about: 'health, readiness, metrics, free-work limit, circuit breakers' },
];

/** One line naming where the documentation is. */
export const DOCUMENTATION_NOTE =
  "The reference documentation is in the service's source repository (indexed by its README.md):";
