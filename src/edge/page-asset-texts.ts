/**
 * The page's files on Workers, which have no file system: bundled into the Worker as text modules
 * (esbuild's `type: 'text'` import attribute), the same bytes Node reads from disk.
 */
import favicon from '#page-assets/favicon.svg' with { type: 'text' };
import homeStyle from '#page-assets/home.css' with { type: 'text' };
import homeScript from '#page-assets/home.js' with { type: 'text' };
import swaggerScript from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'text' };
import swaggerStyle from 'swagger-ui-dist/swagger-ui.css' with { type: 'text' };
import type { AssetFile, AssetLoader } from '../vocabulary/page-assets.ts';

const TEXTS: Record<AssetFile, string> = {
  'favicon.svg': favicon,
  'home.css': homeStyle,
  'home.js': homeScript,
  'swagger-ui-bundle.js': swaggerScript,
  'swagger-ui.css': swaggerStyle,
};

export const bundledAsset: AssetLoader = async (file) => TEXTS[file];
