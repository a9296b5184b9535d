// The page's behaviour: a Copy button on each example, and the API reference rendered by Swagger UI
// from the service's own OpenAPI document (no request leaves this origin).
for (const example of document.querySelectorAll('.example')) {
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

const reference = document.getElementById('api-reference');
if (reference && typeof SwaggerUIBundle === 'function') {
  reference.textContent = '';
  SwaggerUIBundle({
    url: reference.dataset.openapi,
    domNode: reference,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // Never send the document to the public validator service.
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    supportedSubmitMethods: ['get'],
    tryItOutEnabled: false,
  });
}
