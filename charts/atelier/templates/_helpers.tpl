{{/*
Names, labels and images shared by every template.

Every object of a component is named "<fullname>-<component>" (atelier-catalog for release
"atelier"); peers find each other through these names (CATALOG_ADDR=atelier-catalog:50051).
*/}}

{{- define "atelier.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "atelier.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* "<fullname>-<component>"; call with (dict "root" $ "component" "catalog"). */}}
{{- define "atelier.componentName" -}}
{{- printf "%s-%s" (include "atelier.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "atelier.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Selector labels of a component; call with (dict "root" $ "component" "catalog"). They never
change across upgrades (a Deployment's selector is immutable), so no version in them.
*/}}
{{- define "atelier.selectorLabels" -}}
app.kubernetes.io/name: {{ include "atelier.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Every pod of the release, whatever its component: the default-deny NetworkPolicy selects these. */}}
{{- define "atelier.releaseSelectorLabels" -}}
app.kubernetes.io/name: {{ include "atelier.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* All labels of a component's objects; call with (dict "root" $ "component" "catalog"). */}}
{{- define "atelier.labels" -}}
helm.sh/chart: {{ include "atelier.chart" .root }}
{{ include "atelier.selectorLabels" . }}
app.kubernetes.io/part-of: atelier
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{/*
The image of a component: [registry/]repository[:tag][@digest]; call with
(dict "root" $ "image" .Values.catalog.image). The tag defaults to image.tag, then to the chart's
appVersion; a digest, when given, pins the image whatever the tag says.
*/}}
{{- define "atelier.image" -}}
{{- $registry := .root.Values.image.registry | trimSuffix "/" }}
{{- $repository := ternary (printf "%s/%s" $registry .image.repository) .image.repository (ne $registry "") }}
{{- $tag := .image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion | toString }}
{{- if .image.digest }}
{{- printf "%s:%s@%s" $repository $tag .image.digest }}
{{- else }}
{{- printf "%s:%s" $repository $tag }}
{{- end }}
{{- end }}

{{/* "host:port" of a gRPC peer inside the namespace; call with (dict "root" $ "component" "media"). */}}
{{- define "atelier.grpcAddress" -}}
{{- printf "%s:%d" (include "atelier.componentName" .) (include "atelier.port" .component | int) }}
{{- end }}

{{/*
The listen port of each component (GRPC_PORT / HTTP_PORT): the platform description's
(libs/platform), which the services' own config.ts default to. The chart sets them explicitly so
that probes, Services and NetworkPolicies agree; tools/deploy tests check them against both.
*/}}
{{- define "atelier.port" -}}
{{- $ports := dict "gateway" 8080 "catalog" 50051 "media" 50052 "jobs" 50053 "community" 50054 "webhooks" 50055 "pet-directory-sim" 50056 "worker" 9464 "provider-sim" 8090 }}
{{- required (printf "no port known for component %q" .) (get $ports .) }}
{{- end }}

{{/*
How long after its drain bound (shutdownGraceMs, the worker's drainTimeoutMs) each component's
process forces its own exit, in ms: the marginMs of its shutdownPolicy (services/<name>/src/config.ts;
GRACEFUL_SHUTDOWN of libs/lifecycle, 5 s, for the services). terminationGracePeriodSeconds is
derived from it; tools/deploy/chart-services.test.ts holds the two equal.
*/}}
{{- define "atelier.shutdownMarginMs" -}}
{{- $margins := dict "gateway" 5000 "catalog" 5000 "media" 5000 "jobs" 5000 "community" 5000 "webhooks" 5000 "pet-directory-sim" 5000 "worker" 10000 "provider-sim" 0 }}
{{- if not (hasKey $margins .) }}{{ fail (printf "no shutdown margin known for component %q" .) }}{{ end }}
{{- get $margins . }}
{{- end }}

{{/*
A gRPC service's plaintext health-only port (GRPC_HEALTH_PORT): kubelet gRPC probes speak neither
TLS nor client certificates, and the main port requires both. The services' default: port + 100.
*/}}
{{- define "atelier.healthPort" -}}
{{- add (include "atelier.port" . | int) 100 }}
{{- end }}

{{/* The components that speak gRPC over mutual TLS, each with a certificate of its own (pet-directory-sim while it runs). */}}
{{- define "atelier.mtlsComponents" -}}
{{- $components := list "catalog" "media" "jobs" "community" "webhooks" "gateway" "worker" }}
{{- if .Values.petDirectorySim.enabled }}
{{- $components = append $components "pet-directory-sim" }}
{{- end }}
{{- $components | toJson }}
{{- end }}

{{/* The Secret (ca.crt, tls.crt, tls.key) holding a component's certificate. Call with root, component. */}}
{{- define "atelier.tlsSecretName" -}}
{{- $existing := get (.root.Values.mtls.existingSecrets | default dict) .component }}
{{- if $existing }}{{ $existing }}{{ else }}{{ include "atelier.componentName" . }}-tls{{ end }}
{{- end }}

{{/*
Fails unless every gRPC component gets a certificate: from cert-manager (mtls.certManager) or
from a Secret of yours (mtls.existingSecrets.<component>). The services refuse to start without.
*/}}
{{- define "atelier.requireMtls" -}}
{{- $mtls := .Values.mtls }}
{{- if not $mtls.certManager.enabled }}
{{- range (include "atelier.mtlsComponents" . | fromJsonArray) }}
{{- if not (get ($mtls.existingSecrets | default dict) .) }}
{{- fail (printf "mtls: internal gRPC is mutual TLS; set mtls.certManager.enabled=true with an issuerRef, or mtls.existingSecrets.%s to a Secret with ca.crt, tls.crt and tls.key (URI SAN spiffe://%s/svc/%s)" . $mtls.trustDomain .) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* Prometheus /metrics of the gRPC services, a port of its own beside gRPC (METRICS_PORT). */}}
{{- define "atelier.metricsPort" -}}9464{{- end }}

{{/* The AI vendor's base URL: provider.url, else the release's own provider-sim. */}}
{{- define "atelier.providerUrl" -}}
{{- if .Values.provider.url }}
{{- .Values.provider.url }}
{{- else if .Values.providerSim.enabled }}
{{- printf "http://%s:%d" (include "atelier.componentName" (dict "root" . "component" "provider-sim")) (include "atelier.port" "provider-sim" | int) }}
{{- else }}
{{- fail "provider.url is required when providerSim.enabled is false: the worker needs the AI vendor's base URL" }}
{{- end }}
{{- end }}

{{/*
The app's pet service as jobs reaches it (PET_DIRECTORY_ADDR, PET_DIRECTORY_IDENTITY): petDirectory.address
and the identity its certificate proves, else the release's own pet-directory-sim.
*/}}
{{- define "atelier.petDirectoryEnv" -}}
{{- if .Values.petDirectory.address }}
PET_DIRECTORY_ADDR: {{ .Values.petDirectory.address | quote }}
PET_DIRECTORY_IDENTITY: {{ .Values.petDirectory.identity | quote }}
{{- else if .Values.petDirectorySim.enabled }}
PET_DIRECTORY_ADDR: {{ include "atelier.grpcAddress" (dict "root" . "component" "pet-directory-sim") | quote }}
PET_DIRECTORY_IDENTITY: "pet-directory-sim"
{{- else }}
{{- fail "petDirectory.address is required when petDirectorySim.enabled is false: jobs asks the app's pet service whether a job's pet is visible to its user" }}
{{- end }}
{{- end }}

{{/* Variables every service reads the same way (a service's values.env may override them). */}}
{{- define "atelier.commonEnv" -}}
LOG_LEVEL: {{ .Values.logLevel | quote }}
{{- with .Values.otlpEndpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ . | quote }}
{{- end }}
{{- end }}

{{/*
The NATS variables of a component that talks to NATS (catalog, jobs, media, community, worker, gateway): the
servers (nats.url, a list joined with commas), the stream prefix, the streams' replicas for those
that declare streams (all but catalog, which only publishes core NATS notices) and the user — its
own (nats.users.<component>.user) when set, else the shared nats.user. Passwords and tokens come
from atelier.secretEnv. Call with (dict "root" $ "component" "jobs"); merge the result into the
component's env.
*/}}
{{- define "atelier.natsEnv" -}}
{{- $nats := .root.Values.nats }}
{{- $own := get ($nats.users | default dict) .component | default dict }}
NATS_URL: {{ (kindIs "slice" $nats.url | ternary (join "," $nats.url) $nats.url) | quote }}
NATS_STREAM_PREFIX: {{ $nats.streamPrefix | quote }}
{{- if ne .component "catalog" }}
NATS_STREAM_REPLICAS: {{ $nats.streamReplicas | default 1 | toString | quote }}
{{- end }}
{{- with ($own.user | default $nats.user) }}
NATS_USER: {{ . | quote }}
{{- end }}
{{- end }}
