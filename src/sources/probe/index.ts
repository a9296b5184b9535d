/** The live HTTPS probe: what the rest of the app may use. */
export { type AddressVerdict, classifyAddress } from '../public-fetch/address-policy.ts';
export { isCertificateKind, type ProbeErrorKind } from './error-kind.ts';
export type { ProbeConnector, ProbeTarget } from './pinned-request.ts';
export { createProbe, PROBE_TIMEOUT_MS, type Probe, type ProbeDeps } from './probe.ts';
export { PROBE_REUSE_MS, type SharedProbeAnswer, shareProbes } from './shared.ts';
export type { PeerChain, ProbeAnswer } from './verdict.ts';
