import { commonV1, enumWords, type catalogV1 } from '@atelier/contracts';
import { plural, table } from './text-format.js';

/** Every catalog entry, disabled ones included, for a terminal and for scripts. Pure. */

const MEDIA_KIND_WORDS = enumWords(commonV1.MediaKind);

function kindWord(kind: commonV1.MediaKind): string {
  return MEDIA_KIND_WORDS.wordOf(kind) ?? 'unspecified';
}

export function formatCatalogTable(entries: catalogV1.ListCatalogEntriesResponse): string {
  const { models, styles } = entries;
  const lines: string[] = ['Models'];
  if (models.length === 0) lines.push('  none');
  else
    lines.push(
      ...table(
        ['ID', 'CODE', 'KIND', 'ENABLED', 'ORDER', 'JOB TYPE', 'PROVIDER', 'NAME'],
        models.map((m) => [
          m.id,
          m.code,
          kindWord(m.mediaKind),
          m.enabled ? 'yes' : 'NO',
          String(m.sortOrder),
          m.jobType,
          `${m.providerCode}/${m.providerModel}@${m.modelVersion}`,
          m.displayName,
        ]),
      ),
    );
  lines.push('', 'Styles');
  if (styles.length === 0) lines.push('  none');
  else
    lines.push(
      ...table(
        ['ID', 'CODE', 'KIND', 'ENABLED', 'ORDER', 'TITLE'],
        styles.map((s) => [s.id, s.code, kindWord(s.mediaKind), s.enabled ? 'yes' : 'NO', String(s.sortOrder), s.title]),
      ),
    );
  const disabled = models.filter((m) => !m.enabled).length + styles.filter((s) => !s.enabled).length;
  lines.push('', `${plural(models.length, 'model')}, ${plural(styles.length, 'style')}; ${disabled} disabled (hidden from the app).`);
  return `${lines.join('\n')}\n`;
}

/** `{ models, styles }`: fields as the catalog API names them, kinds as words, times in ISO 8601. */
export function formatCatalogJson(entries: catalogV1.ListCatalogEntriesResponse): string {
  const document = {
    models: entries.models.map((m) => ({
      id: m.id,
      code: m.code,
      displayName: m.displayName,
      mediaKind: kindWord(m.mediaKind),
      jobType: m.jobType,
      providerCode: m.providerCode,
      providerModel: m.providerModel,
      modelVersion: m.modelVersion,
      enabled: m.enabled,
      sortOrder: m.sortOrder,
      defaultParameters: m.defaultParameters ?? {},
      createdAt: m.createdAt?.toISOString() ?? null,
      updatedAt: m.updatedAt?.toISOString() ?? null,
    })),
    styles: entries.styles.map((s) => ({
      id: s.id,
      code: s.code,
      title: s.title,
      subtitle: s.subtitle,
      mediaKind: kindWord(s.mediaKind),
      previewAssetId: s.previewAssetId ?? null,
      promptPreset: s.promptPreset,
      enabled: s.enabled,
      sortOrder: s.sortOrder,
      createdAt: s.createdAt?.toISOString() ?? null,
      updatedAt: s.updatedAt?.toISOString() ?? null,
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** What an enable or disable left the entry as. */
export function catalogToggledLine(entry: 'model' | 'style', code: string, id: string, enabled: boolean): string {
  return enabled
    ? `${entry} ${code} (${id}) is enabled: the app lists it again\n`
    : `${entry} ${code} (${id}) is disabled: the app no longer lists it; existing jobs keep it\n`;
}
