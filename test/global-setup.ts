/**
 * Once before every test run: build the client package (`packages/client/dist`), which the CLI,
 * pack and README tests run as users do; kept when it is newer than every source file.
 */
import { buildClient } from '../scripts/build-client.ts';

export default async function setup(): Promise<void> {
  await buildClient({ ifStale: true });
}
