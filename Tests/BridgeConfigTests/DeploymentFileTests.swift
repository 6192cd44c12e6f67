import BridgeConfig
import Foundation
import Testing
import Yams

/// The files in `deploy/` agree with each other and with the bridge: Docker and Kubernetes do not
/// run on the development machines, so this is what can be checked of them here.
@Suite("Deployment files")
struct DeploymentFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func yaml(_ path: String) throws -> [String: Any] {
        try #require(try Yams.load(yaml: text(path)) as? [String: Any], "\(path) is not a YAML mapping")
    }

    /// The production configuration, as the image and the manifests ship it.
    static var production: BridgeConfiguration {
        get throws {
            try ConfigurationLoader.load(
                file: root.appendingPathComponent("config/production.yaml").path, environment: [:])
        }
    }

    @Test("every Kubernetes manifest parses and the kustomization lists each file it names")
    func manifestsParse() throws {
        let kustomization = try Self.yaml("deploy/kubernetes/kustomization.yaml")
        let resources = try #require(kustomization["resources"] as? [String])
        #expect(resources.contains("statefulset.yaml") && resources.contains("configmap.yaml"))
        for file in resources + ["secret.example.yaml", "watch-secret.example.yaml", "gateway-secret.example.yaml"] {
            let manifest = try Self.yaml("deploy/kubernetes/\(file)")
            #expect(manifest["kind"] is String && manifest["apiVersion"] is String, "\(file)")
        }
    }

    @Test("the release is BridgeVersion's everywhere an operator pins it: the image tag, the docs, the changelog")
    func releasePinned() throws {
        let kustomization = try Self.yaml("deploy/kubernetes/kustomization.yaml")
        let images = try #require(kustomization["images"] as? [[String: Any]])
        #expect(images.map { $0["newTag"] as? String } == [BridgeVersion.current])
        let changelog = try Self.text("CHANGELOG.md")
        let releases = changelog.matches(of: /^## \[(\d+\.\d+\.\d+)\]/.anchorsMatchLineEndings()).map { String($0.1) }
        #expect(releases.first == BridgeVersion.current, "CHANGELOG.md's newest release: \(releases)")
        for file in ["README.md", "deploy/README.md", "deploy/kubernetes/kustomization.yaml", "deploy/Dockerfile"] {
            let tags = Set(try Self.text(file).matches(of: /fcm-bridge:(\d+\.\d+\.\d+)/).map { String($0.1) })
            #expect(tags.isSubset(of: [BridgeVersion.current]), "\(file) tags \(tags.sorted())")
            #expect(!(try Self.text(file)).contains("fcm-bridge:latest"), "\(file) names the latest tag")
        }
    }

    @Test("the ConfigMap holds config/production.yaml as it is")
    func configMapIsProductionConfig() throws {
        let configMap = try Self.yaml("deploy/kubernetes/configmap.yaml")
        let data = try #require(configMap["data"] as? [String: String])
        #expect(data["fcm-bridge.yaml"] == (try Self.text("config/production.yaml")))
    }

    @Test(
        "the workers' StatefulSet runs the image's command on the ConfigMap, probes the endpoints' port, keeps a volume for its state, and outlasts the shutdown deadline"
    )
    func statefulSetAgrees() throws {
        let production = try Self.production
        let port = try #require(production.http?.port)
        let deployment = try Self.yaml("deploy/kubernetes/statefulset.yaml")
        #expect(deployment["kind"] as? String == "StatefulSet")
        let pod = try #require(
            ((deployment["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any])
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        let args = try #require(container["args"] as? [String])
        #expect(args.starts(with: ["run", "--config"]))
        let mount = try #require(
            (container["volumeMounts"] as? [[String: Any]])?.first { $0["name"] as? String == "config" })
        #expect(args[2] == "\(mount["mountPath"] as? String ?? "")/fcm-bridge.yaml")
        let ports = try #require(container["ports"] as? [[String: Any]])
        #expect(ports.contains { $0["name"] as? String == "metrics" && $0["containerPort"] as? Int == port })
        for (probe, path) in [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")] {
            let get = try #require((container[probe] as? [String: Any])?["httpGet"] as? [String: Any], "\(probe)")
            #expect(get["path"] as? String == path && get["port"] as? String == "metrics", "\(probe)")
        }
        // state.directory is a volume of the pod's own, which outlives the pod's restarts.
        let state = try #require(
            (container["volumeMounts"] as? [[String: Any]])?.first { $0["name"] as? String == "state" })
        #expect(state["mountPath"] as? String == production.state.directory)
        let claims = try #require((deployment["spec"] as? [String: Any])?["volumeClaimTemplates"] as? [[String: Any]])
        #expect(claims.contains { ($0["metadata"] as? [String: Any])?["name"] as? String == "state" })
        let grace = try #require(pod["terminationGracePeriodSeconds"] as? Int)
        #expect(grace * 1000 > production.shutdownTimeoutMilliseconds)

        // Every variable it sets names a configuration field, and the group instance id (which the
        // transactional id follows) is the pod's name, which a StatefulSet keeps.
        let environment = try #require(container["env"] as? [[String: Any]])
        let names = environment.compactMap { $0["name"] as? String }
        #expect(throws: Never.self) {
            try ConfigurationLoader.load(
                yaml: Self.text("config/production.yaml"),
                environment: Dictionary(uniqueKeysWithValues: names.map { ($0, "x") }))
        }
        let instanceID = environment.first { $0["name"] as? String == "FCM_BRIDGE_KAFKA_GROUP_INSTANCE_ID" }
        let fieldPath =
            ((instanceID?["valueFrom"] as? [String: Any])?["fieldRef"] as? [String: Any])?["fieldPath"] as? String
        #expect(fieldPath == "metadata.name")
        #expect(!names.contains("FCM_BRIDGE_KAFKA_TRANSACTIONAL_ID"), "the transactional id follows the instance id")
        let spec = try #require(deployment["spec"] as? [String: Any])
        let service = try Self.yaml("deploy/kubernetes/service.yaml")
        #expect(spec["serviceName"] as? String == (service["metadata"] as? [String: Any])?["name"] as? String)

        let servicePorts = try #require((service["spec"] as? [String: Any])?["ports"] as? [[String: Any]])
        #expect(servicePorts.contains { $0["port"] as? Int == port })
    }

    /// The pod spec and first container of the Deployment or StatefulSet in `path`.
    static func container(of path: String) throws -> (
        pod: [String: Any], container: [String: Any], labels: [String: String]
    ) {
        let deployment = try yaml(path)
        let template = try #require((deployment["spec"] as? [String: Any])?["template"] as? [String: Any])
        let pod = try #require(template["spec"] as? [String: Any])
        let labels = try #require((template["metadata"] as? [String: Any])?["labels"] as? [String: String])
        return (pod, try #require((pod["containers"] as? [[String: Any]])?.first), labels)
    }

    @Test(
        "the gateway's Deployment mounts what its arguments name, probes its own port, and its Service reaches each port"
    )
    func gatewayDeploymentAgrees() throws {
        let (pod, container, labels) = try Self.container(of: "deploy/kubernetes/gateway-deployment.yaml")
        let args = try #require(container["args"] as? [String])
        #expect(args.starts(with: ["gateway", "--config", "/etc/fcm-bridge/fcm-bridge.yaml"]))
        func argument(_ name: String) throws -> String {
            try #require(args.firstIndex(of: name).map { args[$0 + 1] }, "\(name)")
        }
        let mounts = try #require(container["volumeMounts"] as? [[String: Any]])
        let volumes = try #require(pod["volumes"] as? [[String: Any]])
        let secret = try Self.yaml("deploy/kubernetes/gateway-secret.example.yaml")
        let secretName = (secret["metadata"] as? [String: Any])?["name"] as? String
        for file in try ["--tls-certificate", "--tls-key", "--accounts"].map(argument) {
            let mount = mounts.first { file.hasPrefix(($0["mountPath"] as? String ?? "?") + "/") }
            let volume = volumes.first { $0["name"] as? String == mount?["name"] as? String }
            let source = try #require(volume?["secret"] as? [String: Any], "\(file) is on no Secret volume")
            let items = source["items"] as? [[String: Any]]
            let name = URL(fileURLWithPath: file).lastPathComponent
            #expect(
                items.map { $0.contains { $0["path"] as? String == name } } ?? ["tls.crt", "tls.key"].contains(name))
            if source["secretName"] as? String == secretName {
                #expect(
                    (secret["stringData"] as? [String: String])?[name] != nil, "\(name) is not in the example Secret")
            }
        }
        let ports = try #require(container["ports"] as? [[String: Any]])
        let service = try #require(try Self.yaml("deploy/kubernetes/gateway-service.yaml")["spec"] as? [String: Any])
        #expect(service["selector"] as? [String: String] == labels)
        for (option, name) in [("--listen", "https"), ("--proxy-listen", "proxy"), ("--http-listen", "metrics")] {
            let address = try #require(HTTPAddress(parsing: try argument(option)))
            #expect(ports.contains { $0["name"] as? String == name && $0["containerPort"] as? Int == address.port })
            #expect(
                (service["ports"] as? [[String: Any]])?.contains { $0["targetPort"] as? String == name } == true,
                "\(name)")
        }
        for (probe, path) in [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")] {
            let get = try #require((container[probe] as? [String: Any])?["httpGet"] as? [String: Any], "\(probe)")
            #expect(get["path"] as? String == path && get["port"] as? String == "metrics", "\(probe)")
        }
        // --workers names the headless Service of the workers' operations port.
        let workers = try #require(HTTPAddress(parsing: try argument("--workers")))
        let headless = try #require(try Self.yaml("deploy/kubernetes/workers-service.yaml")["spec"] as? [String: Any])
        #expect(headless["clusterIP"] as? String == "None")
        #expect(
            headless["selector"] as? [String: String]
                == (try Self.container(of: "deploy/kubernetes/statefulset.yaml").labels))
        #expect((headless["ports"] as? [[String: Any]])?.contains { $0["port"] as? Int == workers.port } == true)
        #expect(workers.port == (try Self.production.http?.port))
        let environment = try #require(container["env"] as? [[String: Any]])
        let names = environment.compactMap { $0["name"] as? String }
        #expect(names.contains("FCM_BRIDGE_GATEWAY_TOKEN_SECRET"))
        #expect(throws: Never.self) {
            try ConfigurationLoader.load(
                yaml: Self.text("config/production.yaml"),
                environment: Dictionary(uniqueKeysWithValues: names.map { ($0, "x") }))
        }
    }

    @Test(
        "the watcher's Deployment runs watch on the ConfigMap, probes its own port, reads its secrets from a Secret, and is not selected as a worker"
    )
    func watchDeploymentAgrees() throws {
        let (pod, container, labels) = try Self.container(of: "deploy/kubernetes/watch-deployment.yaml")
        let args = try #require(container["args"] as? [String])
        #expect(args.starts(with: ["watch", "--config", "/etc/fcm-bridge/fcm-bridge.yaml", "--on-deleted-messages"]))
        let listen = try #require(
            args.firstIndex(of: "--http-listen").map { HTTPAddress(parsing: args[$0 + 1]) } ?? nil)
        let ports = try #require(container["ports"] as? [[String: Any]])
        #expect(ports.contains { $0["name"] as? String == "metrics" && $0["containerPort"] as? Int == listen.port })
        #expect(
            listen.port != (try Self.production.http?.port),
            "the watcher's port differs from the workers' (one host may run both)")
        for (probe, path) in [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")] {
            let get = try #require((container[probe] as? [String: Any])?["httpGet"] as? [String: Any], "\(probe)")
            #expect(get["path"] as? String == path && get["port"] as? String == "metrics", "\(probe)")
        }
        #expect(pod["enableServiceLinks"] as? Bool == false)
        let environment = try #require(container["env"] as? [[String: Any]])
        let secrets = environment.first { $0["name"] as? String == "FCM_BRIDGE_WEBHOOK_SECRETS" }
        let reference = try #require((secrets?["valueFrom"] as? [String: Any])?["secretKeyRef"] as? [String: Any])
        let secret = try Self.yaml("deploy/kubernetes/watch-secret.example.yaml")
        #expect(reference["name"] as? String == (secret["metadata"] as? [String: Any])?["name"] as? String)
        #expect((secret["stringData"] as? [String: String])?.keys.contains(reference["key"] as? String ?? "") == true)
        // Every variable is a configuration field or the secrets, which the loader lets through.
        let names = environment.compactMap { $0["name"] as? String }
        #expect(throws: Never.self) {
            try ConfigurationLoader.load(
                yaml: Self.text("config/production.yaml"),
                environment: Dictionary(uniqueKeysWithValues: names.map { ($0, "x") }))
        }
        let workers = try Self.container(of: "deploy/kubernetes/statefulset.yaml").labels
        #expect(labels["app.kubernetes.io/name"] != workers["app.kubernetes.io/name"])
        let service = try Self.yaml("deploy/kubernetes/watch-service.yaml")
        let spec = try #require(service["spec"] as? [String: Any])
        #expect(spec["selector"] as? [String: String] == labels)
        #expect((spec["ports"] as? [[String: Any]])?.contains { $0["port"] as? Int == listen.port } == true)
    }

    @Test(
        "the watcher's systemd unit runs watch on the production path, is not restarted after exit 2, and its environment file loads"
    )
    func watchSystemdAgrees() throws {
        let unit = try Self.text("deploy/systemd/fcm-bridge-watch.service")
        #expect(
            unit.contains(
                "ExecStart=/usr/local/bin/fcm-bridge watch --config /etc/fcm-bridge/fcm-bridge.yaml --on-deleted-messages "
            ))
        #expect(unit.contains("RestartPreventExitStatus=2"))
        #expect(unit.contains("EnvironmentFile=-/etc/fcm-bridge/fcm-bridge-watch.env"))
        let variables = try Self.text("deploy/systemd/fcm-bridge-watch.env.example").split(separator: "\n")
            .filter { !$0.hasPrefix("#") && $0.contains("=") }.map { String($0.split(separator: "=")[0]) }
        #expect(variables.contains("FCM_BRIDGE_WEBHOOK_SECRETS"))
        #expect(throws: Never.self) {
            try ConfigurationLoader.load(
                yaml: Self.text("config/production.yaml"),
                environment: Dictionary(uniqueKeysWithValues: variables.map { ($0, "x") }))
        }
    }

    @Test(
        "the Dockerfile builds the product, ships the production config where the command reads it, and exposes the endpoints' port"
    )
    func dockerfileAgrees() throws {
        let dockerfile = try Self.text("deploy/Dockerfile")
        let port = try #require(try Self.production.http?.port)
        #expect(dockerfile.contains("--product fcm-bridge"))
        #expect(dockerfile.contains("COPY config/production.yaml /etc/fcm-bridge/fcm-bridge.yaml"))
        #expect(dockerfile.contains(#"CMD ["run", "--config", "/etc/fcm-bridge/fcm-bridge.yaml""#))
        #expect(dockerfile.contains("EXPOSE \(port)"))
        let instructions = dockerfile.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!instructions.contains { $0.contains(".deps") }, "the image must not depend on the local .deps/")
        #expect(dockerfile.contains("USER 10001"))
        let state = try #require(try Self.production.state.directory)
        #expect(dockerfile.contains("VOLUME \(state)") && dockerfile.contains("-o 10001 -g 10001 -m 0700 \(state)"))
        let ignored = try Self.text(".dockerignore").split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(ignored.contains { $0.hasPrefix(".build") } && ignored.contains { $0.hasPrefix(".deps") })
    }

    @Test(
        "the systemd unit runs the bridge on the production path, outlasts the shutdown deadline, and its environment file names fields"
    )
    func systemdAgrees() throws {
        let unit = try Self.text("deploy/systemd/fcm-bridge.service")
        #expect(unit.contains("ExecStart=/usr/local/bin/fcm-bridge run --config /etc/fcm-bridge/fcm-bridge.yaml"))
        let stop = try #require(unit.firstMatch(of: /TimeoutStopSec=(\d+)/).flatMap { Int($0.1) })
        #expect(stop * 1000 > (try Self.production.shutdownTimeoutMilliseconds))
        #expect(
            unit.contains("RestartPreventExitStatus=2"), "a configuration error (exit 2) is not restarted in a loop")
        let unitVariables = unit.split(separator: "\n").filter { $0.hasPrefix("Environment=") }
            .map { String($0.dropFirst("Environment=".count).split(separator: "=")[0]) }
        #expect(unitVariables.contains("FCM_BRIDGE_KAFKA_GROUP_INSTANCE_ID"), "each host keeps its place in the group")
        let stateDirectory = try #require(unit.firstMatch(of: /\nStateDirectory=(\S+)/).map { String($0.1) })
        #expect(
            "/var/lib/\(stateDirectory)" == (try Self.production.state.directory), "state.directory outlives restarts")
        let variables = try Self.text("deploy/systemd/fcm-bridge.env.example").split(separator: "\n")
            .filter { !$0.hasPrefix("#") && $0.contains("=") }.map { String($0.split(separator: "=")[0]) }
        #expect(!variables.isEmpty)
        #expect(throws: Never.self) {
            try ConfigurationLoader.load(
                yaml: Self.text("config/production.yaml"),
                environment: Dictionary(uniqueKeysWithValues: Set(variables + unitVariables).map { ($0, "x") }))
        }
    }
}
