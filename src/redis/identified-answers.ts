/**
 * The answers of payments that carried a payment identifier, in Redis: the same semantics as the
 * process store (`payments/server/identified-answers.ts`), fleet-wide. A record is a hash (`binding`, the
 * holder's `token` while pending, the `answer` JSON once answered) that expires with its lease or its
 * redelivery window; each step is one script, so two instances never both take an identifier.
 */
import {
  type Begun,
  IDENTIFIED_LEASE_MS,
  type IdentifiedAnswers,
  type StoredAnswer,
} from '../payments/server/identified-answers.ts';
import { REDELIVERY_WINDOW_MS } from '../payments/server/undelivered.ts';
import { luaScript, type SharedStore } from './connection.ts';

/** KEYS[1] record; ARGV binding, token, lease ms. Returns the kind, and the answer when answered. */
const begin = luaScript(`local found = redis.call('HMGET', KEYS[1], 'binding', 'answer')
if found[1] then
  if found[1] ~= ARGV[1] then return {'conflict'} end
  if found[2] then return {'answered', found[2]} end
  return {'pending'}
end
redis.call('HSET', KEYS[1], 'binding', ARGV[1], 'token', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {'begun'}`);

/** KEYS[1] record; ARGV token, answer JSON, window ms. Stores the answer if the token still holds the record. */
const answer = luaScript(`if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 'token')
redis.call('HSET', KEYS[1], 'answer', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`);

/** KEYS[1] record; ARGV token. Deletes the record if the token still holds it. */
const release = luaScript(
  `if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
);

const recordKey = (key: string) => `paid-answer:${key}`;

export function redisIdentifiedAnswers({ redis }: SharedStore): IdentifiedAnswers {
  return {
    async begin(key, binding) {
      const token = crypto.randomUUID();
      const [kind, stored] = (await begin(redis, [recordKey(key)], binding, token, IDENTIFIED_LEASE_MS)) as [
        Begun['kind'],
        string?,
      ];
      if (kind === 'begun') return { kind, token };
      if (kind === 'answered') return { kind, answer: JSON.parse(stored as string) as StoredAnswer };
      return { kind };
    },
    async answer(key, token, stored) {
      await answer(redis, [recordKey(key)], token, JSON.stringify(stored), REDELIVERY_WINDOW_MS);
    },
    async release(key, token) {
      await release(redis, [recordKey(key)], token);
    },
  };
}
