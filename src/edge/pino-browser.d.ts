/** pino's browser build (`pino/browser.js`) has the package's own API and types. */
declare module 'pino/browser.js' {
  export { pino } from 'pino';
}
