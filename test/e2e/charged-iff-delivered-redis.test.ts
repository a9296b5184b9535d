/**
 * Charged if and only if delivered, once more with two Node instances that settle with one wallet
 * and share their state through a real redis-server (`REDIS_URL`): the same cases as on one
 * instance (charged-iff-delivered.ts), over HTTP, run concurrently on both, so every fault case
 * also meets the other instance's settlements on the same account nonces.
 */
import { describeChargedIffDelivered } from './charged-iff-delivered.ts';

describeChargedIffDelivered(
  'http',
  'Two instances, one wallet, Redis: the payer is charged the price if and only if the result was delivered',
  { sharedStore: true },
);
