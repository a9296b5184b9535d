// Pays for one Website Checks call with the official x402 Go SDK.
//
//	cd examples/go && go mod tidy
//	X402_PRIVATE_KEY=0x... BASE_URL=http://localhost:8080 go run . cert healthy-shop.com
//
// Not run by this repository's tests (the Go module proxy is not reachable there); written against
// the SDK's own HTTP client example (x402 v2: Newx402Client, Register, WrapHTTPClientWithPayment).
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	x402 "github.com/x402-foundation/x402/go/v2"
	x402http "github.com/x402-foundation/x402/go/v2/http"
	evm "github.com/x402-foundation/x402/go/v2/mechanisms/evm/exact/client"
	evmsigners "github.com/x402-foundation/x402/go/v2/signers/evm"
)

func main() {
	check, domain := "cert", "example.com"
	if len(os.Args) > 1 {
		check = os.Args[1]
	}
	if len(os.Args) > 2 {
		domain = os.Args[2]
	}
	baseURL := strings.TrimRight(os.Getenv("BASE_URL"), "/")
	if baseURL == "" {
		baseURL = "http://localhost:8080"
	}
	key := os.Getenv("X402_PRIVATE_KEY")
	if key == "" {
		fail("Set X402_PRIVATE_KEY to the payer key (0x + 64 hex digits).")
	}

	signer, err := evmsigners.NewClientSignerFromPrivateKey(key)
	if err != nil {
		fail("bad key: %v", err)
	}
	client := x402.Newx402Client()
	client.Register("eip155:*", evm.NewExactEvmScheme(signer))
	httpClient := x402http.WrapHTTPClientWithPayment(http.DefaultClient, x402http.Newx402HTTPClient(client))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	target := fmt.Sprintf("%s/v1/%s?domain=%s", baseURL, check, url.QueryEscape(domain))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		fail("request: %v", err)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		fail("cannot reach %s: %v", baseURL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		fail("HTTP %d: %s", resp.StatusCode, body)
	}
	fmt.Println(string(body))

	if header := resp.Header.Get("PAYMENT-RESPONSE"); header != "" {
		decoded, err := base64.StdEncoding.DecodeString(header)
		var receipt x402.SettleResponse
		if err == nil && json.Unmarshal(decoded, &receipt) == nil {
			fmt.Fprintf(os.Stderr, "Paid: transaction %s from %s on %s\n", receipt.Transaction, receipt.Payer, receipt.Network)
		}
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
