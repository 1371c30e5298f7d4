{{/*
Everything one service needs, from its values block: ConfigMap (its environment), Secret (the
secret values the chart manages for it), ServiceAccount, Deployment, Service and
PodDisruptionBudget. Each service's template file says only what is its own. Call with a dict:

  root          $
  component     "catalog" (labels, object names, container name)
  values        the service's values block (.Values.catalog)
  env           dict of the service's non-secret variables; values.env overrides them
  protocol      "grpc": native gRPC probes (grpc.health.v1, overall service "")
                "http": HTTP probes on httpProbes.readiness / httpProbes.liveness
  httpProbes    dict readiness, liveness (paths), with protocol "http"
  metricsPort   a separate /metrics port (gRPC services), or 0
  scrape        whether Prometheus scrapes the pod (on metricsPort, else on the service port)
  drainMs       what bounds the service's drain after SIGTERM (its SHUTDOWN_GRACE_MS or
                WORKER_DRAIN_TIMEOUT_MS); its process forces its exit atelier.shutdownMarginMs later
  autoscaled    true when an HPA or ScaledObject owns the replica count
  mtls          true when the component calls or serves gRPC: its certificate Secret is mounted
                at /etc/atelier/tls and GRPC_TLS_* point at it (atelier.tlsSecretName)
*/}}
{{- define "atelier.component" -}}
{{- $root := .root }}
{{- $values := .values }}
{{- $ctx := dict "root" .root "component" .component }}
{{- $name := include "atelier.componentName" $ctx }}
{{- $port := include "atelier.port" .component | int }}
{{- $portName := ternary "grpc" "http" (eq .protocol "grpc") }}
{{- $env := deepCopy .env }}
{{- range $key, $value := $values.env }}
{{- $_ := set $env $key $value }}
{{- end }}
{{- $healthPort := include "atelier.healthPort" .component | int }}
{{- if eq .protocol "grpc" }}
{{- $_ := set $env "GRPC_HEALTH_PORT" (toString $healthPort) }}
{{- end }}
{{- if .mtls }}
{{- $_ := set $env "GRPC_TLS_CA_FILE" "/etc/atelier/tls/ca.crt" }}
{{- $_ = set $env "GRPC_TLS_CERT_FILE" "/etc/atelier/tls/tls.crt" }}
{{- $_ = set $env "GRPC_TLS_KEY_FILE" "/etc/atelier/tls/tls.key" }}
{{- $_ = set $env "GRPC_TRUST_DOMAIN" $root.Values.mtls.trustDomain }}
{{- end }}
{{- $secretData := include "atelier.secretData" $ctx }}
{{- $scrapePort := .metricsPort | default $port }}
{{- /* SIGKILL must come after the process's own deadline, so the drain, not the kubelet, decides. */}}
{{- $preStop := $values.preStopSleepSeconds | int }}
{{- $forcedExitMs := add .drainMs (include "atelier.shutdownMarginMs" .component | int) }}
{{- $grace := add $preStop (div (add $forcedExitMs 999) 1000) 5 }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $name }}
  labels:
    {{- include "atelier.labels" $ctx | nindent 4 }}
data:
  {{- range $key, $value := $env }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
---
{{- if $secretData }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ $name }}
  labels:
    {{- include "atelier.labels" $ctx | nindent 4 }}
type: Opaque
data:
  {{- $secretData | indent 2 }}
---
{{- end }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $name }}
  labels:
    {{- include "atelier.labels" $ctx | nindent 4 }}
  {{- with $values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
# No service talks to the Kubernetes API; a token in the pod would only be something to steal.
automountServiceAccountToken: false
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
  labels:
    {{- include "atelier.labels" $ctx | nindent 4 }}
spec:
  {{- if not .autoscaled }}
  replicas: {{ $values.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "atelier.selectorLabels" $ctx | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      # A new pod is ready before an old one goes, even with one replica.
      maxSurge: 1
      maxUnavailable: 0
  template:
    metadata:
      labels:
        {{- include "atelier.labels" $ctx | nindent 8 }}
      annotations:
        # Pods roll when their configuration or chart-managed secrets change.
        checksum/config: {{ toJson $env | sha256sum }}
        checksum/secret: {{ $secretData | sha256sum }}
        {{- if and .scrape $root.Values.metrics.scrapeAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $scrapePort | quote }}
        prometheus.io/path: /metrics
        {{- end }}
        {{- with $values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ $name }}
      automountServiceAccountToken: false
      # Peers are reached by the names in the ConfigMap; Docker-link variables would only add noise.
      enableServiceLinks: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ $grace }}
      {{- with $values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- with $values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- range . }}
        {{- /* A constraint without a labelSelector counts this component's pods. */}}
        - {{ toYaml (merge (deepCopy .) (dict "labelSelector" (dict "matchLabels" (include "atelier.selectorLabels" $ctx | fromYaml)))) | nindent 10 | trim }}
        {{- end }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "atelier.image" (dict "root" $root "image" $values.image) | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          ports:
            - name: {{ $portName }}
              containerPort: {{ $port }}
              protocol: TCP
            {{- if .metricsPort }}
            - name: metrics
              containerPort: {{ .metricsPort }}
              protocol: TCP
            {{- end }}
            {{- if eq .protocol "grpc" }}
            - name: grpc-health
              containerPort: {{ $healthPort }}
              protocol: TCP
            {{- end }}
          envFrom:
            - configMapRef:
                name: {{ $name }}
          {{- with include "atelier.secretEnv" $ctx }}
          env:
            {{- . | nindent 12 }}
          {{- end }}
          {{- if eq .protocol "grpc" }}
          startupProbe:
            grpc:
              port: {{ $healthPort }}
            periodSeconds: 2
            failureThreshold: 60
          readinessProbe:
            grpc:
              port: {{ $healthPort }}
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 2
          livenessProbe:
            grpc:
              port: {{ $healthPort }}
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          {{- else }}
          startupProbe:
            httpGet:
              path: {{ .httpProbes.liveness }}
              port: {{ $portName }}
            periodSeconds: 2
            failureThreshold: 60
          readinessProbe:
            httpGet:
              path: {{ .httpProbes.readiness }}
              port: {{ $portName }}
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 2
          livenessProbe:
            httpGet:
              path: {{ .httpProbes.liveness }}
              port: {{ $portName }}
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          {{- end }}
          {{- if gt $preStop 0 }}
          lifecycle:
            # Endpoints are removed asynchronously after SIGTERM: keep serving meanwhile.
            preStop:
              exec:
                command: ["sleep", "{{ $preStop }}"]
          {{- end }}
          resources:
            {{- toYaml $values.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if .mtls }}
            - name: tls
              mountPath: /etc/atelier/tls
              readOnly: true
            {{- end }}
            {{- /* A whole directory, never a subPath: a subPath mount would not see the Secret change. */}}
            {{- range $file := .secretFiles }}
            - name: {{ $file.volume }}
              mountPath: {{ $file.dir }}
              readOnly: true
            {{- end }}
      volumes:
        # The root filesystem is read-only; /tmp is the one writable place.
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- if .mtls }}
        # This component's certificate for mutual TLS (cert-manager renews it in place; the
        # services read it at start-up, so a rollout picks a renewed one up).
        - name: tls
          secret:
            secretName: {{ include "atelier.tlsSecretName" $ctx }}
            defaultMode: 0440
            items:
              - { key: ca.crt, path: ca.crt }
              - { key: tls.crt, path: tls.crt }
              - { key: tls.key, path: tls.key }
        {{- end }}
        {{- range $file := .secretFiles }}
        # Read again by the service when the Secret changes (docs/credentials.md).
        - name: {{ $file.volume }}
          secret:
            secretName: {{ $file.secret }}
            defaultMode: 0440
            items:
              - { key: {{ $file.key }}, path: {{ $file.key }} }
        {{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
  labels:
    {{- include "atelier.labels" $ctx | nindent 4 }}
spec:
  {{- if eq .protocol "grpc" }}
  # Headless: the name resolves to every ready pod and the gRPC clients balance calls round-robin
  # over them (libs/grpc). A ClusterIP would pin each long-lived HTTP/2 connection to one pod.
  clusterIP: None
  {{- else }}
  type: ClusterIP
  {{- end }}
  selector:
    {{- include "atelier.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: {{ $portName }}
      port: {{ $port }}
      targetPort: {{ $portName }}
      protocol: TCP
      appProtocol: {{ ternary "grpc" "http" (eq .protocol "grpc") }}
    {{- if .metricsPort }}
    - name: metrics
      port: {{ .metricsPort }}
      targetPort: metrics
      protocol: TCP
      appProtocol: http
    {{- end }}
{{- if $values.pdb.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $name }}
  labels:
    {{- include "atelier.labels" $ctx | nindent 4 }}
spec:
  {{- if $values.pdb.minAvailable }}
  minAvailable: {{ $values.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $values.pdb.maxUnavailable | default 1 }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "atelier.selectorLabels" $ctx | nindent 6 }}
{{- end }}
{{- end }}
