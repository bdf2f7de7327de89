import pg from 'pg';

/** Runs `work` on a connection of the PostgreSQL server's superuser, closed after it. */
async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Runs one statement as the PostgreSQL server's superuser (`create database`, `drop database`). */
export async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  await withAdmin(adminUrl, (client) => client.query(statement));
}

/** The server's version as a number (`server_version_num`: 150004 for 15.4). */
export function serverVersion(adminUrl: string): Promise<number> {
  return withAdmin(adminUrl, async (client) => {
    const { rows } = await client.query<{ v: string }>(
      "select current_setting('server_version_num') as v",
    );
    return Number(rows[0]?.v);
  });
}
