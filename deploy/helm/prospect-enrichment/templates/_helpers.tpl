{{/* Names and labels. */}}

{{- define "pe.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "pe.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := .Values.nameOverride | default .Chart.Name }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The release's image tag. The chart's appVersion names no build, so the tag
(or a digest) must be given: a default would put every image pushed under
that tag under one build id.
*/}}
{{- define "pe.imageTag" -}}
{{- if not (or .Values.image.tag .Values.image.digest) }}
{{- fail "image.tag is required (or image.digest): the image to run, e.g. --set image.tag=2026.11.0" }}
{{- end }}
{{- .Values.image.tag | toString }}
{{- end }}

{{/* The release's image: by digest when one is pinned, else by tag. */}}
{{- define "pe.releaseImage" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (include "pe.imageTag" .) }}
{{- end }}
{{- end }}

{{/* What the version label says: the tag, or the build id of an image given by digest alone. */}}
{{- define "pe.version" -}}
{{- include "pe.imageTag" . | default (include "pe.buildId" .) }}
{{- end }}

{{/* Labels of every object: (dict "root" $ "component" "api"). */}}
{{- define "pe.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: {{ include "pe.name" .root }}
app.kubernetes.io/version: {{ include "pe.labelValue" (include "pe.version" .root) | quote }}
{{ include "pe.selectorLabels" . }}
{{- end }}

{{/* What a Deployment selects on; the build id is part of it, so each build is a Deployment of its own. */}}
{{- define "pe.selectorLabels" -}}
app.kubernetes.io/name: {{ include "pe.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- if .buildId }}
prospect-enrichment/build-id: {{ include "pe.labelValue" .buildId | quote }}
{{- end }}
{{- end }}

{{/* What every worker pod carries, of any role and build: the NetworkPolicy and the metrics Service select on it. */}}
{{- define "pe.workerPodLabel" -}}
prospect-enrichment/process: worker
{{- end }}

{{/* A label value: letters, digits, '-', '_' and '.', at most 63 characters. */}}
{{- define "pe.labelValue" -}}
{{- regexReplaceAll "[^A-Za-z0-9_.-]" . "_" | trunc 63 | trimAll "_.-" }}
{{- end }}

{{/* A build id as part of an object's name: lower-case letters, digits and '-'. */}}
{{- define "pe.nameSuffix" -}}
{{- regexReplaceAll "[^a-z0-9-]+" (lower .) "-" | trunc 20 | trimAll "-" }}
{{- end }}

{{- define "pe.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- .Values.serviceAccount.name | default (include "pe.fullname" .) }}
{{- else }}
{{- .Values.serviceAccount.name | default "default" }}
{{- end }}
{{- end }}

{{/* Worker Versioning (docs/deploy.md#rolling-out-a-new-image). */}}

{{/*
The build id: workerVersioning.buildId, else the image's. A pinned digest is
part of it (the tag and the digest's first 12 hex digits), so that an image
pushed again under the same tag is another build; else the tag.
*/}}
{{- define "pe.buildId" -}}
{{- if .Values.workerVersioning.buildId }}
{{- .Values.workerVersioning.buildId | toString }}
{{- else }}
{{- include "pe.buildIdOf" (dict "tag" (include "pe.imageTag" .) "digest" .Values.image.digest) }}
{{- end }}
{{- end }}

{{/* (dict "tag" … "digest" …): the build id of an image. */}}
{{- define "pe.buildIdOf" -}}
{{- if .digest }}
{{- $short := substr 7 19 .digest }}
{{- if .tag }}{{ printf "%s-%s" .tag $short }}{{ else }}{{ printf "sha256-%s" $short }}{{ end }}
{{- else }}
{{- .tag }}
{{- end }}
{{- end }}

{{- define "pe.deploymentName" -}}
{{- .Values.workerVersioning.deploymentName | default (include "pe.fullname" .) }}
{{- end }}

{{/* A worker role's Deployment: (dict "root" $ "role" "research" "buildId" "1.2.0"). */}}
{{- define "pe.workerName" -}}
{{- $base := printf "%s-%s" (include "pe.fullname" .root) .role }}
{{- if .root.Values.workerVersioning.enabled }}
{{- printf "%s-%s" $base (include "pe.nameSuffix" .buildId) | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $base | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* A role's values over the shared workerDefaults: (list $ "research"). */}}
{{- define "pe.workerValues" -}}
{{- $root := index . 0 }}
{{- $role := index . 1 }}
{{- $own := index $root.Values.workers $role | default dict }}
{{- toYaml (mergeOverwrite (deepCopy $root.Values.workerDefaults) (deepCopy $own)) }}
{{- end }}

{{/*
Drain timing. After SIGTERM a process is unready for readinessDelayMs, then
stops taking work, and what is in flight gets graceMs; then a worker cancels
what still runs and shuts down, in a few seconds. The pod's grace period must
outlast all of it, or the kubelet kills work that was still allowed to finish. (dict "root" $ "shutdown" … "override" …)
*/}}
{{- define "pe.terminationGracePeriodSeconds" -}}
{{- $delayMs := int64 .shutdown.readinessDelayMs }}
{{- $graceMs := int64 .shutdown.graceMs }}
{{- $needed := add (div (add $delayMs $graceMs 999) 1000) 5 }}
{{- if .override }}
{{- if le (int64 .override) $needed }}
{{- fail (printf "%s.terminationGracePeriodSeconds=%v must exceed the drain (readiness delay %d ms + grace %d ms + 5 s = %d s)" .where .override $delayMs $graceMs $needed) }}
{{- end }}
{{- int64 .override }}
{{- else }}
{{- add $needed 5 }}
{{- end }}
{{- end }}

{{/* Settings. */}}

{{/* Variables that hold secrets: never in the ConfigMap, only by reference (secrets.env). */}}
{{- define "pe.secretVariablePattern" -}}
^(DATABASE_URL|TEMPORAL_API_KEY|TEMPORAL_TLS_CLIENT_KEY_DATA|SMTP_PASSWORD)$|_(KEY|SECRET|PASSWORD|TOKEN)$
{{- end }}

{{/* The env entries of every process's secrets, each a secretKeyRef (YAML, or nothing). */}}
{{- define "pe.secretEnv" -}}
{{- $entries := list }}
{{- range $variable := keys .Values.secrets.env | sortAlpha }}
{{- $ref := index $.Values.secrets.env $variable }}
{{- if $ref }}
{{- $entries = append $entries (include "pe.secretKeyRefEnv" (dict "root" $ "variable" $variable "ref" $ref) | fromYaml) }}
{{- end }}
{{- end }}
{{- with $entries }}{{ toYaml . }}{{ end }}
{{- end }}

{{/* One variable from a Secret: a key of secrets.existingSecret, or {name, key, optional}. */}}
{{- define "pe.secretKeyRefEnv" -}}
{{- $name := .root.Values.secrets.existingSecret }}
{{- $key := .ref }}
{{- $optional := false }}
{{- if kindIs "map" .ref }}
{{- $name = .ref.name | default $name }}
{{- $key = required (printf "secrets.env.%s.key is required" .variable) .ref.key }}
{{- $optional = .ref.optional | default false }}
{{- end }}
{{- if not $name }}
{{- fail (printf "secrets.env.%s: set secrets.existingSecret or the reference's own name" .variable) }}
{{- end }}
{{- $selector := dict "name" $name "key" (toString $key) }}
{{- if $optional }}
{{- $_ := set $selector "optional" true }}
{{- end }}
{{- toYaml (dict "name" .variable "valueFrom" (dict "secretKeyRef" $selector)) }}
{{- end }}

{{/* Where the Temporal client's files are mounted. */}}
{{- define "pe.temporalTlsDir" -}}/etc/prospect-enrichment/temporal-tls{{- end }}
{{- define "pe.temporalConfigDir" -}}/etc/prospect-enrichment/temporal-config{{- end }}

{{/* The Temporal connection (@temporalio/envconfig's variables) beyond the ConfigMap's address and namespace. */}}
{{- define "pe.temporalEnv" -}}
{{- $t := .Values.temporal }}
{{- $entries := list }}
{{- if $t.apiKey.existingSecret }}
{{- $entries = append $entries (include "pe.secretKeyRefEnv" (dict "root" $ "variable" "TEMPORAL_API_KEY" "ref" (dict "name" $t.apiKey.existingSecret "key" $t.apiKey.key)) | fromYaml) }}
{{- end }}
{{- if $t.tls.existingSecret }}
{{- $dir := include "pe.temporalTlsDir" . }}
{{- $entries = append $entries (dict "name" "TEMPORAL_TLS_CLIENT_CERT_PATH" "value" (printf "%s/client.crt" $dir)) }}
{{- $entries = append $entries (dict "name" "TEMPORAL_TLS_CLIENT_KEY_PATH" "value" (printf "%s/client.key" $dir)) }}
{{- if $t.tls.caKey }}
{{- $entries = append $entries (dict "name" "TEMPORAL_TLS_SERVER_CA_CERT_PATH" "value" (printf "%s/ca.crt" $dir)) }}
{{- end }}
{{- end }}
{{- if $t.configFile.existingSecret }}
{{- $entries = append $entries (dict "name" "TEMPORAL_CONFIG_FILE" "value" (printf "%s/temporal.toml" (include "pe.temporalConfigDir" .))) }}
{{- with $t.configFile.profile }}
{{- $entries = append $entries (dict "name" "TEMPORAL_PROFILE" "value" .) }}
{{- end }}
{{- end }}
{{- with $entries }}{{ toYaml . }}{{ end }}
{{- end }}

{{/* The mounts of every process: a writable /tmp (the root filesystem is read-only) and the Temporal client's files. */}}
{{- define "pe.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.temporal.tls.existingSecret }}
- name: temporal-tls
  mountPath: {{ include "pe.temporalTlsDir" . }}
  readOnly: true
{{- end }}
{{- if .Values.temporal.configFile.existingSecret }}
- name: temporal-config
  mountPath: {{ include "pe.temporalConfigDir" . }}
  readOnly: true
{{- end }}
{{- end }}

{{- define "pe.volumes" -}}
{{- $t := .Values.temporal -}}
- name: tmp
  emptyDir: {}
{{- if $t.tls.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ $t.tls.existingSecret | quote }}
    defaultMode: 0440
    items:
      - key: {{ $t.tls.certKey | quote }}
        path: client.crt
      - key: {{ $t.tls.keyKey | quote }}
        path: client.key
      {{- if $t.tls.caKey }}
      - key: {{ $t.tls.caKey | quote }}
        path: ca.crt
      {{- end }}
{{- end }}
{{- if $t.configFile.existingSecret }}
- name: temporal-config
  secret:
    secretName: {{ $t.configFile.existingSecret | quote }}
    defaultMode: 0440
    items:
      - key: {{ $t.configFile.key | quote }}
        path: temporal.toml
{{- end }}
{{- end }}

{{/* What every pod of the chart shares. */}}
{{- define "pe.podSpecCommon" -}}
serviceAccountName: {{ include "pe.serviceAccountName" . }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.podSecurityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Scheduling of one kind of pod: its own values over the shared `scheduling`
(YAML, or nothing). A Deployment's pods (given its selector labels) without
topologySpreadConstraints of their own are spread over zones and nodes, as
evenly as the scheduler can without leaving one pending (ScheduleAnyway), so
that one node or zone going down takes only its share of each role.
pod-template-hash counts only the pods of the same rollout.
*/}}
{{- define "pe.scheduling" -}}
{{- $merged := mergeOverwrite (deepCopy .root.Values.scheduling) (deepCopy (.own | default dict)) }}
{{- if and .selectorLabels (not $merged.topologySpreadConstraints) $merged.defaultTopologySpread }}
{{- $constraints := list }}
{{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
{{- $constraints = append $constraints (dict "maxSkew" 1 "topologyKey" $key "whenUnsatisfiable" "ScheduleAnyway" "labelSelector" (dict "matchLabels" $.selectorLabels) "matchLabelKeys" (list "pod-template-hash")) }}
{{- end }}
{{- $_ := set $merged "topologySpreadConstraints" $constraints }}
{{- end }}
{{- $spec := dict }}
{{- range $field := list "nodeSelector" "tolerations" "affinity" "topologySpreadConstraints" "priorityClassName" }}
{{- with index $merged $field }}
{{- $_ := set $spec $field . }}
{{- end }}
{{- end }}
{{- with $spec }}{{ toYaml . }}{{ end }}
{{- end }}

{{/*
The Node command line of an entry point: (list $ "api/main.ts" …args). Given
as the container's args, not its command, so that the image's entrypoint
(tini, which hands signals to Node and reaps orphans) stays PID 1.
*/}}
{{- define "pe.command" -}}
{{- $root := first . }}
{{- toJson (concat (list "node") $root.Values.nodeArgs (rest .)) }}
{{- end }}

{{- define "pe.checksumConfig" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- end }}

{{/* The worker roles, as worker/role-names.ts names them. */}}
{{- define "pe.roles" -}}
["research", "crm", "webhooks", "housekeeping"]
{{- end }}

{{/* The builds whose workers run: the release's, then the draining ones (a JSON list). */}}
{{- define "pe.builds" -}}
{{- $builds := list (dict "buildId" (include "pe.buildId" .) "image" (include "pe.releaseImage" .) "isCurrent" true) }}
{{- if .Values.workerVersioning.enabled }}
{{- $repository := .Values.image.repository }}
{{- range .Values.workerVersioning.drainingBuilds }}
{{- $buildId := required "workerVersioning.drainingBuilds[].buildId is required" .buildId | toString }}
{{- $image := ternary (printf "%s@%s" $repository (.digest | toString)) (printf "%s:%s" $repository (.imageTag | default $buildId | toString)) (not (empty .digest)) }}
{{- $builds = append $builds (dict "buildId" $buildId "image" $image "replicas" (.replicas | default 1) "roles" (.roles | default list) "isCurrent" false) }}
{{- end }}
{{- end }}
{{- toJson $builds }}
{{- end }}
