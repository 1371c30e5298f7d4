{{/*
Secrets. Each secret the services read is a "secret reference" in values:

  { value: "", existingSecret: "", existingSecretKey: "<VARIABLE>" }

existingSecret names a Secret you manage (External Secrets, Sealed Secrets, a vault injector);
otherwise the chart stores `value` in a Secret of its own, "<fullname>-<component>". With neither,
the variable is left unset, which the service reports at start-up, unless strictSecrets is on:
then rendering fails and names the missing value.
*/}}

{{/*
Which component reads which secret, in one place: a YAML list of
{ env, path (for messages), ref, required }. Call with (dict "root" $ "component" "catalog").
*/}}
{{- define "atelier.secretItems" -}}
{{- $values := .root.Values }}
{{- $items := list }}
{{- if has .component (list "catalog" "media" "jobs" "community" "webhooks") }}
{{- $items = append $items (dict "env" "DATABASE_URL" "path" (printf "database.%s" .component) "ref" (get $values.database .component) "required" true) }}
{{- end }}
{{- if has .component (list "catalog" "jobs" "media" "community" "worker" "webhooks" "gateway") }}
{{- /* A user of the component's own (nats.users.<component>) or the shared login; strictSecrets needs one. */}}
{{- $own := get ($values.nats.users | default dict) .component | default dict }}
{{- if $own.user }}
{{- $items = append $items (dict "env" "NATS_PASSWORD" "path" (printf "nats.users.%s.password" .component) "ref" $own.password "required" true) }}
{{- else }}
{{- $items = append $items (dict "env" "NATS_PASSWORD" "path" "nats.password" "ref" $values.nats.password "required" (not (empty $values.nats.user))) }}
{{- $items = append $items (dict "env" "NATS_TOKEN" "path" "nats.token" "ref" $values.nats.token "required" false) }}
{{- $hasToken := or $values.nats.token.existingSecret $values.nats.token.value }}
{{- if and $.root.Values.strictSecrets (not $values.nats.user) (not $hasToken) }}
{{- fail (printf "NATS credentials of %s: set nats.users.%s.user and .password (a user per service, see nats/nats-server.conf.example), or nats.user with nats.password, or nats.token; strictSecrets is on" .component .component) }}
{{- end }}
{{- end }}
{{- end }}
{{- if has .component (list "media" "jobs" "community") }}
{{- $items = append $items (dict "env" "PRODUCT_EVENTS_USER_KEY" "path" "productEvents.userKey" "ref" $values.productEvents.userKey "required" true) }}
{{- end }}
{{- if eq .component "media" }}
{{- $items = append $items (dict "env" "S3_ACCESS_KEY_ID" "path" "s3.accessKeyId" "ref" $values.s3.accessKeyId "required" true) }}
{{- $items = append $items (dict "env" "S3_SECRET_ACCESS_KEY" "path" "s3.secretAccessKey" "ref" $values.s3.secretAccessKey "required" true) }}
{{- end }}
{{- if eq .component "gateway" }}
{{- /* A JWKS URL replaces the PEM key: then the key is optional. */}}
{{- $items = append $items (dict "env" "JWT_PUBLIC_KEY" "path" "jwt.publicKey" "ref" $values.jwt.publicKey "required" (not $values.jwt.jwksUrl)) }}
{{- end }}
{{- if eq .component "worker" }}
{{- /* A mounted key file (provider.apiKeyFile) replaces it: then it is optional. */}}
{{- $items = append $items (dict "env" "PROVIDER_API_KEY" "path" "provider.apiKey" "ref" $values.provider.apiKey "required" (not $values.provider.apiKeyFile.existingSecret)) }}
{{- end }}
{{- if eq .component "provider-sim" }}
{{- /* The simulator accepts exactly the worker's key; with none it accepts any token. */}}
{{- $items = append $items (dict "env" "PROVIDER_SIM_API_KEYS" "path" "provider.apiKey" "ref" $values.provider.apiKey "required" false) }}
{{- end }}
{{- toYaml $items }}
{{- end }}

{{/*
The container's env entries for a component's secrets; call with (dict "root" $ "component" "catalog").
*/}}
{{- define "atelier.secretEnv" -}}
{{- $name := include "atelier.componentName" . }}
{{- range $item := include "atelier.secretItems" . | fromYamlArray }}
{{- $ref := $item.ref }}
{{- if $ref.existingSecret }}
- name: {{ $item.env }}
  valueFrom:
    secretKeyRef:
      name: {{ $ref.existingSecret }}
      key: {{ $ref.existingSecretKey | default $item.env }}
{{- else if $ref.value }}
- name: {{ $item.env }}
  valueFrom:
    secretKeyRef:
      name: {{ $name }}
      key: {{ $item.env }}
{{- else if and $.root.Values.strictSecrets $item.required }}
{{- fail (printf "%s: set %s.existingSecret (a Secret you manage) or %s.value; strictSecrets is on" $item.env $item.path $item.path) }}
{{- end }}
{{- end }}
{{- end }}

{{/* The chart-managed Secret's data for a component (values without an existingSecret), base64. */}}
{{- define "atelier.secretData" -}}
{{- range $item := include "atelier.secretItems" . | fromYamlArray }}
{{- if and $item.ref.value (not $item.ref.existingSecret) }}
{{ $item.env }}: {{ $item.ref.value | toString | b64enc | quote }}
{{- end }}
{{- end }}
{{- end }}
