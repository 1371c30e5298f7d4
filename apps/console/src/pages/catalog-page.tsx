import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { Badge, Empty, ErrorState, Loading } from '../ui/states';
import { useMay } from '../api/operator';

type Model = paths['/admin-api/catalog']['get']['responses'][200]['content']['application/json']['models'][number];

/** Every model and style, disabled ones included: enable, disable, edit a model's default parameters. */
export function CatalogPage() {
  const client = useQueryClient();
  const may = useMay();
  const catalog = useQuery({
    queryKey: ['catalog'],
    queryFn: async () => unwrap(await api.GET('/admin-api/catalog', { params: { query: {} } })),
  });
  const toggle = useMutation({
    mutationFn: async ({ kind, id, enable }: { kind: 'models' | 'styles'; id: string; enable: boolean }) => {
      const options = { params: { path: { id } } };
      if (kind === 'models') {
        return unwrap(
          await (enable
            ? api.POST('/admin-api/catalog/models/{id}/enable', options)
            : api.POST('/admin-api/catalog/models/{id}/disable', options)),
        );
      }
      return unwrap(
        await (enable
          ? api.POST('/admin-api/catalog/styles/{id}/enable', options)
          : api.POST('/admin-api/catalog/styles/{id}/disable', options)),
      );
    },
    onSettled: () => client.invalidateQueries({ queryKey: ['catalog'] }),
  });
  const [editing, setEditing] = useState<string | null>(null);

  if (catalog.isPending) return <Loading what="the catalog" />;
  if (catalog.isError) return <ErrorState error={catalog.error} />;
  const { models, styles } = catalog.data;
  return (
    <section>
      <header className="page-header">
        <h1>Catalog</h1>
      </header>
      {toggle.isError && <ErrorState error={toggle.error} />}
      <h2>Models</h2>
      {models.length === 0 ? (
        <Empty>No model yet.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Code</th>
              <th>Name</th>
              <th>Job type</th>
              <th>Provider</th>
              <th>Defaults</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {models.map((model) => (
              <tr key={model.id} data-model={model.code}>
                <td>{model.code}</td>
                <td>{model.displayName}</td>
                <td>{model.jobType}</td>
                <td>
                  {model.providerCode}/{model.providerModel}
                </td>
                <td>
                  {editing === model.id ? (
                    <DefaultsEditor model={model} onDone={() => setEditing(null)} />
                  ) : (
                    <>
                      <code>{JSON.stringify(model.defaultParameters)}</code>{' '}
                      {may('PUT /admin-api/catalog/models/{code}') && <button onClick={() => setEditing(model.id)}>Edit</button>}
                    </>
                  )}
                </td>
                <td>
                  <Badge value={model.enabled ? 'enabled' : 'disabled'} />
                </td>
                <td>
                  {may('POST /admin-api/catalog/models/{id}/enable') && (
                    <button
                      disabled={toggle.isPending}
                      onClick={() => toggle.mutate({ kind: 'models', id: model.id, enable: !model.enabled })}
                    >
                      {model.enabled ? 'Disable' : 'Enable'}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Styles</h2>
      {styles.length === 0 ? (
        <Empty>No style yet.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Code</th>
              <th>Title</th>
              <th>Kind</th>
              <th>Prompt preset</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {styles.map((style) => (
              <tr key={style.id} data-style={style.code}>
                <td>{style.code}</td>
                <td>{style.title}</td>
                <td>{style.mediaKind}</td>
                <td className="muted">{style.promptPreset}</td>
                <td>
                  <Badge value={style.enabled ? 'enabled' : 'disabled'} />
                </td>
                <td>
                  {may('POST /admin-api/catalog/styles/{id}/enable') && (
                    <button
                      disabled={toggle.isPending}
                      onClick={() => toggle.mutate({ kind: 'styles', id: style.id, enable: !style.enabled })}
                    >
                      {style.enabled ? 'Disable' : 'Enable'}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The model's default parameters as JSON, saved with PUT /admin-api/catalog/models/{code}. */
function DefaultsEditor({ model, onDone }: { model: Model; onDone: () => void }) {
  const client = useQueryClient();
  const [text, setText] = useState(JSON.stringify(model.defaultParameters, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async (defaultParameters: Record<string, unknown>) => {
      const { id: _id, code, createdAt: _c, updatedAt: _u, ...rest } = model;
      return unwrap(
        await api.PUT('/admin-api/catalog/models/{code}', { params: { path: { code } }, body: { ...rest, defaultParameters } }),
      );
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['catalog'] });
      onDone();
    },
  });
  const submit = () => {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('must be a JSON object');
      setProblem(null);
      save.mutate(parsed as Record<string, unknown>);
    } catch (error) {
      setProblem(`Default parameters ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return (
    <div className="editor">
      <textarea aria-label={`default parameters of ${model.code}`} rows={4} value={text} onChange={(e) => setText(e.target.value)} />
      {problem && <div className="state error">{problem}</div>}
      {save.isError && <ErrorState error={save.error} />}
      <button disabled={save.isPending} onClick={submit}>
        Save
      </button>{' '}
      <button onClick={onDone}>Cancel</button>
    </div>
  );
}
