/** What the rest of the app may use from the cert check. */
export { assessCertificates, type CertAssessment } from './assess.ts';
export { CERT_FINDINGS } from './findings.ts';
export { CHAIN_FINDINGS } from './served-chain.ts';
export { type CertRunnerDeps, createCertRunner } from './run.ts';
