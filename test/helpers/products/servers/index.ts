/** The product servers the products lane runs, by name (the name the namespace runner is given). */
import type { Product } from '../product.ts';
import { firecrawl } from './firecrawl.ts';
import { gitlab } from './gitlab.ts';
import { notion } from './notion.ts';
import { searxng } from './searxng.ts';

export const PRODUCTS: Readonly<Record<string, Product>> = { firecrawl, gitlab, notion, searxng };
