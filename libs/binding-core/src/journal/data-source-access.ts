import type { DataSource } from 'typeorm';

/**
 * How repositories reach PostgreSQL: resolves once the data source is connected and migrated.
 * Lazy, because inbound HTTP may arrive while the service is still connecting; it then waits
 * instead of failing on an uninitialized data source.
 */
export type DataSourceAccess = () => Promise<DataSource>;
