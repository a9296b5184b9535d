// The page's behaviour: a Copy button on each example, and the API reference rendered by Swagger UI
// from the service's own OpenAPI document (no request leaves this origin).
for (const example of document.querySelectorAll('.command')) {
  const code = example.querySelector('pre');
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', `Copy: ${example.dataset.label ?? 'example'}`);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(code.textContent);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy';
    }
    setTimeout(() => (button.textContent = 'Copy'), 2000);
  });
  example.append(button);
}

// "Try it out" on a paid route answers 402 with a PAYMENT-REQUIRED header: base64 JSON. Show it
// decoded under the raw response: the price in USD, the network, the asset and the recipient.
const NETWORKS = { 'eip155:8453': 'Base', 'eip155:84532': 'Base Sepolia' };
const USDC_DECIMALS = 6;

function decodeChallenge(header) {
  try {
    const bytes = Uint8Array.from(atob(header.trim()), (c) => c.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

function usd(atomic) {
  const digits = String(atomic).padStart(USDC_DECIMALS + 1, '0');
  const whole = digits.slice(0, -USDC_DECIMALS);
  const fraction = digits.slice(-USDC_DECIMALS).replace(/0+$/, '').padEnd(2, '0');
  return `$${whole}.${fraction}`;
}

function challengeRows(challenge) {
  const rows = [['x402 version', String(challenge.x402Version)]];
  if (challenge.error) rows.push(['Reason', challenge.error]);
  if (challenge.resource?.url) rows.push(['Resource', challenge.resource.url]);
  for (const [index, option] of (challenge.accepts ?? []).entries()) {
    const which = challenge.accepts.length > 1 ? ` (${index + 1})` : '';
    const network = NETWORKS[option.network]
      ? `${option.network} (${NETWORKS[option.network]})`
      : option.network;
    const asset = option.extra?.name ? `${option.asset} (${option.extra.name})` : option.asset;
    rows.push(
      [
        `Price${which}`,
        `${usd(option.amount)} in USDC (${option.amount} atomic units, scheme ${option.scheme})`,
      ],
      [`Network${which}`, network],
      [`Asset${which}`, asset],
      [`Recipient${which}`, option.payTo],
    );
  }
  return rows;
}

const DecodedChallengePlugin = () => ({
  wrapComponents: {
    liveResponse: (Original, system) =>
      function LiveResponseWithChallenge(props) {
        const h = system.React.createElement;
        const header = props.response?.get('headers')?.get?.('payment-required');
        const challenge = header ? decodeChallenge(header) : undefined;
        if (!challenge) return h(Original, props);
        return h(
          'div',
          null,
          h(Original, props),
          h(
            'div',
            { className: 'decoded-challenge' },
            h('h4', null, 'PAYMENT-REQUIRED, decoded'),
            h(
              'dl',
              null,
              ...challengeRows(challenge).flatMap(([term, value]) => [
                h('dt', { key: `t${term}` }, term),
                h('dd', { key: `d${term}` }, value),
              ]),
            ),
          ),
        );
      },
  },
});

const reference = document.getElementById('api-reference');
if (reference && typeof SwaggerUIBundle === 'function') {
  reference.textContent = '';
  SwaggerUIBundle({
    url: reference.dataset.openapi,
    domNode: reference,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [DecodedChallengePlugin],
    layout: 'BaseLayout',
    // Never send the document to the public validator service.
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    supportedSubmitMethods: ['get'],
    tryItOutEnabled: false,
  });
}
