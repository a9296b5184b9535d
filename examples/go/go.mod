module example.com/website-checks-example

go 1.24

require github.com/x402-foundation/x402/go/v2 v2.9.0
