import pg from 'pg';

/** Runs one statement as the PostgreSQL server's superuser (`create database`, `drop database`). */
export async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
