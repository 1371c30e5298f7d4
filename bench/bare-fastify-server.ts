// The yardstick of bench/gateway.ts: a bare Fastify route doing one primary-key query on the same
// Postgres. No auth, no gRPC, no validation: the floor a gateway request cannot go below.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify();
app.get<{ Params: { id: string } }>('/jobs/:id', async (request, reply) => {
  const { rows } = await pool.query({
    name: 'bare.job',
    text: 'SELECT * FROM jobs.generation_jobs WHERE id = $1',
    values: [request.params.id],
  });
  if (!rows[0]) return reply.code(404).send({ error: 'not found' });
  return rows[0];
});
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.HTTP_PORT), host: '127.0.0.1' });
