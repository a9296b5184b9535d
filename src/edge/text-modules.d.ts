/** Files the Worker bundles as text (`with { type: 'text' }`): their content as a string. */
declare module '#page-assets/*' {
  const text: string;
  export default text;
}
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const text: string;
  export default text;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const text: string;
  export default text;
}
