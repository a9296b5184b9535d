"""Pays for one Website Checks call with the official x402 Python SDK and httpx.

    pip install x402 httpx eth-account
    X402_PRIVATE_KEY=0x... BASE_URL=http://localhost:8080 python pay_with_httpx.py cert healthy-shop.com

Not run by this repository's tests (no Python package index is reachable there); written against
the SDK's own httpx example (x402 v2: x402Client, register_exact_evm_client, x402HttpxClient).
"""

import asyncio
import json
import os
import sys

from eth_account import Account
from x402 import x402Client
from x402.http import x402HTTPClient
from x402.http.clients import x402HttpxClient
from x402.mechanisms.evm import EthAccountSigner
from x402.mechanisms.evm.exact.register import register_exact_evm_client


async def main() -> int:
    check = sys.argv[1] if len(sys.argv) > 1 else "cert"
    domain = sys.argv[2] if len(sys.argv) > 2 else "example.com"
    base_url = os.environ.get("BASE_URL", "http://localhost:8080").rstrip("/")
    key = os.environ.get("X402_PRIVATE_KEY")
    if not key:
        print("Set X402_PRIVATE_KEY to the payer key (0x + 64 hex digits).", file=sys.stderr)
        return 1

    client = x402Client()
    register_exact_evm_client(client, EthAccountSigner(Account.from_key(key)))

    async with x402HttpxClient(client) as http:
        response = await http.get(f"{base_url}/v1/{check}", params={"domain": domain})
        await response.aread()

    if not response.is_success:
        print(f"HTTP {response.status_code}: {response.text}", file=sys.stderr)
        return 1
    print(json.dumps(response.json(), indent=2))
    receipt = x402HTTPClient(client).get_payment_settle_response(lambda name: response.headers.get(name))
    print(f"Paid: transaction {receipt.transaction} from {receipt.payer} on {receipt.network}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
