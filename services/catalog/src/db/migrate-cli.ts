// `npm run migrate -w @atelier/catalog`: applies pending migrations to schema catalog and exits.
import { runMigrateCli } from '@atelier/orm';
import { CATALOG_SCHEMA, createCatalogOrm } from './catalog-orm.js';

await runMigrateCli('catalog', CATALOG_SCHEMA, (url) => createCatalogOrm(url, 2));
