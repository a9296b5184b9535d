#!/usr/bin/env bash
# The x402 v2 exchange by hand with curl: a free call, an unpaid call whose 402 challenge is decoded,
# then (with a signer) the paid retry and its decoded receipt.
#
#   BASE_URL=http://localhost:8080 examples/curl/pay-by-hand.sh healthy-shop.com
#
# Signing the EIP-3009 authorization needs an x402 client library; with X402_PRIVATE_KEY set this
# script asks the TypeScript signer beside it (examples/typescript/sign-challenge.ts, run by the
# repository's Node.js 24 after `npm ci`) for the PAYMENT-SIGNATURE header. Needs curl and base64.
set -euo pipefail
base="${BASE_URL:-http://localhost:8080}"
domain="${1:-example.com}"
here="$(cd "$(dirname "$0")" && pwd)"

echo "1. Free: is ${domain} a valid domain?"
curl -sS "${base}/v1/validate?domain=${domain}"
echo

echo "2. Unpaid call: the answer is 402 with a PAYMENT-REQUIRED header (base64 JSON)."
headers="$(curl -sS -o /dev/null -D - "${base}/v1/cert?domain=${domain}")"
status="$(printf '%s' "$headers" | sed -n 1p | cut -d' ' -f2)"
challenge="$(printf '%s' "$headers" | grep -i '^payment-required:' | cut -d' ' -f2 | tr -d '\r')"
echo "HTTP ${status}"
printf '%s' "$challenge" | base64 -d
echo

if [ -z "${X402_PRIVATE_KEY:-}" ]; then
  echo "3. Set X402_PRIVATE_KEY to sign and send the payment."
  exit 0
fi

echo "3. Paid retry with the PAYMENT-SIGNATURE header; the receipt is the PAYMENT-RESPONSE header."
signature="$(cd "${here}/../.." && npm exec --silent -- node examples/typescript/sign-challenge.ts "$challenge")"
response="$(curl -sS -D - -H "PAYMENT-SIGNATURE: ${signature}" "${base}/v1/cert?domain=${domain}")"
receipt="$(printf '%s' "$response" | grep -i '^payment-response:' | cut -d' ' -f2 | tr -d '\r')"
printf '%s' "$response" | sed '1,/^\r\{0,1\}$/d'
echo
echo "Receipt:"
printf '%s' "$receipt" | base64 -d
echo
