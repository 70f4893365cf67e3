{{/*
The templates read deploy/'s own manifests (files/ links to them) and apply what deploy/'s kustomizations apply
(namespace, labels, image) and then the values: the chart and the kustomizations cannot drift apart.
*/}}

{{/* The Kubernetes objects of a manifest file (multi-document YAML), as a JSON list: fromJsonArray (include ...). */}}
{{- define "kdp.docs" -}}
{{- $objects := list }}
{{- range $doc := regexSplit "(?m)^---[ \t]*$" (.root.Files.Get .path) -1 }}
{{- $object := fromYaml $doc }}
{{- if and $object (hasKey $object "kind") }}{{ $objects = append $objects $object }}{{ end }}
{{- end }}
{{- toJson $objects }}
{{- end }}

{{/* Prints an object after kustomize's transforms: namespace (namespaced kinds), labels, pod-template labels. */}}
{{- define "kdp.emit" -}}
{{- $object := .object }}
{{- $clusterScoped := list "Namespace" "ClusterRole" "ClusterRoleBinding" "DeviceClass" "ValidatingAdmissionPolicy" "ValidatingAdmissionPolicyBinding" "NodeFeatureRule" }}
{{- if and .namespace (not (has $object.kind $clusterScoped)) }}
{{- $_ := set $object.metadata "namespace" .namespace }}
{{- end }}
{{- if .labels }}
{{- $_ := set $object.metadata "labels" (mergeOverwrite (default dict $object.metadata.labels) .labels) }}
{{- if and .templateLabels (eq $object.kind "DaemonSet") }}
{{- $meta := $object.spec.template.metadata }}
{{- $_ := set $meta "labels" (mergeOverwrite (default dict $meta.labels) .labels) }}
{{- end }}
{{- end }}
---
{{ toYaml $object }}
{{- end }}

{{/* The image tag: the value, or the chart's appVersion. */}}
{{- define "kdp.tag" -}}
{{- default .root.Chart.AppVersion .tag }}
{{- end }}

{{/*
Applies the scheduling, resources, image, config and flag values to a plugin DaemonSet (kdp.emit prints it).
Arguments: root, ds (the object), binary, values (the plugin's values), labels, plugin (true for a device
plugin: cdi and nodeConfig apply).
*/}}
{{- define "kdp.daemonSet" -}}
{{- $root := .root }}
{{- $v := .values }}
{{- $ds := .ds }}
{{- $pod := $ds.spec.template.spec }}
{{- $container := index $pod.containers 0 }}
{{- $image := default dict $v.image }}
{{- $repository := default (printf "%s/%s" $root.Values.image.registry .binary) $image.repository }}
{{- $_ := set $container "image" (printf "%s:%s" $repository (include "kdp.tag" (dict "root" $root "tag" (default $root.Values.image.tag $image.tag)))) }}
{{- if or $image.pullPolicy (hasKey $container "imagePullPolicy") }}
{{- $_ := set $container "imagePullPolicy" (default $root.Values.image.pullPolicy $image.pullPolicy) }}
{{- end }}
{{- with $root.Values.imagePullSecrets }}{{ $_ := set $pod "imagePullSecrets" . }}{{ end }}
{{- with (default $root.Values.resources $v.resources) }}{{ $_ := set $container "resources" . }}{{ end }}
{{- /* The monitor has no priority class unless monitor.priorityClassName gives it one. */}}
{{- with (ternary $v.priorityClassName (default $root.Values.priorityClassName $v.priorityClassName) (eq .binary "device-monitor")) }}
{{- $_ := set $pod "priorityClassName" . }}
{{- end }}
{{- with (default $root.Values.updateStrategy $v.updateStrategy) }}{{ $_ := set $ds.spec "updateStrategy" . }}{{ end }}
{{- /* The manifests' own affinity keeps device plugins and DRA drivers off each other's nodes (kdp.dev/<plugin>.mode). */}}
{{- with (default $root.Values.affinity $v.affinity) }}{{ $_ := set $pod "affinity" . }}{{ end }}
{{- $nodeSelector := merge (dict) (default dict $v.nodeSelector) $root.Values.nodeSelector (default dict $pod.nodeSelector) }}
{{- with $nodeSelector }}{{ $_ := set $pod "nodeSelector" . }}{{ end }}
{{- $tolerations := concat (default list $pod.tolerations) $root.Values.tolerations (default list $v.tolerations) }}
{{- with $tolerations }}{{ $_ := set $pod "tolerations" . }}{{ end }}
{{- $args := $container.args }}
{{- if and .plugin $root.Values.cdi.enabled }}
{{- $args = append $args "--cdi-dir=/var/run/cdi" }}
{{- $_ := set $container "volumeMounts" (append $container.volumeMounts (dict "name" "cdi" "mountPath" "/var/run/cdi")) }}
{{- $_ := set $pod "volumes" (append $pod.volumes (dict "name" "cdi" "hostPath" (dict "path" "/var/run/cdi" "type" "DirectoryOrCreate"))) }}
{{- end }}
{{- if and .plugin $root.Values.nodeConfig.label }}
{{- $_ := set $pod "automountServiceAccountToken" true }}
{{- $args = append $args (printf "--node-config-label=%s" $root.Values.nodeConfig.label) }}
{{- end }}
{{- /* NVIDIA's --mig-strategy, which the GPU plugin takes as nvidia.migStrategy. */}}
{{- with $v.migStrategy }}{{ $args = append $args (printf "--mig-strategy=%s" .) }}{{ end }}
{{- $_ := set $container "args" (concat $args (default list $v.extraArgs)) }}
{{- include "kdp.emit" (dict "object" $ds "namespace" $root.Release.Namespace "labels" .labels "templateLabels" true) }}
{{- end }}

{{/*
A plugin's ConfigMap (unless config.name names an existing one) and the DaemonSet edits it implies. With config.map
holding other keys than the example's, or config.default, the plugin's --config names the ConfigMap's directory
(one key per node or group: the node's name, nodeConfig.label's value, or config.default chooses).
Arguments: root, ds, configMap (the example ConfigMap object), config (the plugin's config values), labels,
single (a one-plugin DaemonSet: --default-config applies). Prints the ConfigMap; edits ds in place.
*/}}
{{- define "kdp.config" -}}
{{- $pod := .ds.spec.template.spec }}
{{- $container := index $pod.containers 0 }}
{{- $config := default dict .config }}
{{- $configMap := .configMap }}
{{- $key := first (keys $configMap.data | sortAlpha) }}
{{- $volume := "" }}
{{- range $pod.volumes }}{{ if and .configMap (eq .configMap.name $configMap.metadata.name) }}{{ $volume = . }}{{ end }}{{ end }}
{{- $dir := "" }}
{{- range $container.volumeMounts }}{{ if eq .name $volume.name }}{{ $dir = .mountPath }}{{ end }}{{ end }}
{{- if $config.name }}
{{- $_ := set $volume.configMap "name" $config.name }}
{{- else }}
{{- with $config.map }}{{ $_ := set $configMap "data" . }}{{ end }}
{{- include "kdp.emit" (dict "object" $configMap "namespace" .root.Release.Namespace "labels" .labels) }}
{{- end }}
{{- if or $config.default (and $config.map (not (and (eq (len $config.map) 1) (hasKey $config.map $key)))) }}
{{- $args := list }}
{{- range $container.args }}
{{- if hasSuffix (printf "=%s/%s" $dir $key) . }}{{ $args = append $args (trimSuffix (printf "/%s" $key) .) }}{{ else }}{{ $args = append $args . }}{{ end }}
{{- end }}
{{- if and .single $config.default }}{{ $args = append $args (printf "--default-config=%s" $config.default) }}{{ end }}
{{- $_ := set $container "args" $args }}
{{- end }}
{{- end }}

{{/* The first object of a manifest file under files/. Arguments: root, path. */}}
{{- define "kdp.object" -}}
{{- toJson (first (fromJsonArray (include "kdp.docs" .))) }}
{{- end }}
