/**
 * The contracts the embedded local chain installs: the EIP-3009 test token at the Base USDC address
 * and Multicall3 at its canonical address. Runtime code comes from contracts/build (npm run contracts).
 */
import { parseAbi } from 'viem';
import multicall3Artifact from '../../../contracts/build/Multicall3.json' with { type: 'json' };
import testUsdcArtifact from '../../../contracts/build/TestUSDC.json' with { type: 'json' };

/** USDC on Base mainnet (the default `X402_ASSET`); the test token is placed here. */
export const BASE_USDC_ADDRESS = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/** Multicall3's address on every chain, Base's included: the payment SDK's own facilitator diagnoses failed simulations through it. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** Runtime bytecode of contracts/TestUSDC.sol, for `anvil_setCode`. */
export const TEST_USDC_RUNTIME = testUsdcArtifact.deployedBytecode as `0x${string}`;

/** Runtime bytecode of contracts/Multicall3.sol, for `anvil_setCode`. */
export const MULTICALL3_RUNTIME = multicall3Artifact.deployedBytecode as `0x${string}`;

/** Typed ABI of the test token (a test keeps it equal to the compiled ABI). */
export const TEST_USDC_ABI = parseAbi([
  'function name() view returns (string)',
  'function version() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function mint(address to, uint256 amount)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
]);
