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

/** The server's version as a number (`server_version_num`: 150004 for 15.4). */
export async function serverVersion(adminUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string }>(
      "select current_setting('server_version_num') as v",
    );
    return Number(rows[0]?.v);
  } finally {
    await client.end();
  }
}
