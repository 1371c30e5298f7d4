import { Migration } from '@atelier/orm';

/**
 * Production reference data: the models and styles the app launches with. Ids are fixed so that
 * environments agree; operators change entries later through UpsertModel/UpsertStyle. Style
 * codes match the transforms provider-sim knows.
 */
export class CatalogSeed extends Migration {
  override up(): void {
    this.addSql(`
      INSERT INTO catalog.models
        (id, code, display_name, provider_code, provider_model, model_version, media_kind, job_type, sort_order, default_parameters)
      VALUES
        ('019a0000-0000-7000-8000-000000000001', 'atelier-stylizer', 'Atelier Stylizer', 'sim', 'sim-stylize', '1.0', 'image', 'image.stylize', 10, '{"strength": 0.8}'),
        ('019a0000-0000-7000-8000-000000000002', 'atelier-stylizer-fast', 'Atelier Stylizer Fast', 'sim', 'sim-stylize-fast', '1.0', 'image', 'image.stylize', 20, '{"strength": 0.6}'),
        ('019a0000-0000-7000-8000-000000000003', 'atelier-upscaler', 'Atelier Upscaler', 'sim', 'sim-upscale', '1.0', 'image', 'image.upscale', 30, '{"scale": 2}')
      ON CONFLICT (code, media_kind) DO NOTHING`);
    this.addSql(`
      INSERT INTO catalog.styles (id, code, title, subtitle, media_kind, prompt_preset, sort_order)
      VALUES
        ('019a0000-0000-7000-8000-000000000101', 'watercolor', 'Watercolor', 'Soft washes of colour', 'image', 'a gentle watercolor painting', 10),
        ('019a0000-0000-7000-8000-000000000102', 'pixel-art', 'Pixel Art', 'Chunky retro pixels', 'image', '16-bit pixel art', 20),
        ('019a0000-0000-7000-8000-000000000103', 'sketch', 'Pencil Sketch', 'Graphite on paper', 'image', 'a detailed pencil sketch', 30),
        ('019a0000-0000-7000-8000-000000000104', 'pop-art', 'Pop Art', 'Bold flat colours', 'image', 'a bold pop-art poster', 40),
        ('019a0000-0000-7000-8000-000000000105', 'vintage', 'Vintage Photo', 'Warm sepia tones', 'image', 'an old sepia photograph', 50)
      ON CONFLICT (code, media_kind) DO NOTHING`);
  }
}
