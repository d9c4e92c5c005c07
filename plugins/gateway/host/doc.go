// Package host is the gateway's host program: what the hookflow gateway
// command runs. It reads a configuration file ([ReadConfig],
// [ParseConfig]) into a [Config], a whole gateway server: its upstreams,
// its apps, its virtual endpoints ([EndpointConfig]: paths that each serve
// a server of their own with a selection of the upstreams' entities), and
// the plugins of each, every plugin a [PluginConfig] (a
// [PluginSpec] made by [Plugin] from the plugin's constructor, and its
// configuration). [Serve] builds and serves it over stdio or streamable
// HTTP, with the health endpoints and the drain; [Explain] prints its hook
// plans and [Check] checks it without serving. A plugin that fronts the
// HTTP endpoint (the auth plugin) does so by being a [HandlerPlugin]; one
// whose pages are served on that endpoint behind it (the console) by
// being a [PagesPlugin]. A plugin whose configuration is [UpstreamAware]
// (the command plugin's, for its mcp_tool hooks) gets the upstreams'
// names and prefixes before it is built, without this package knowing
// the plugin. What a file gives that still works but is deprecated is in
// [Config.Warnings].
//
// This package owns the configuration schema (docs/gateway.md is its
// reference): a setting of the gateway server, of its listeners, its
// logging or its upstreams' keys in the file is added here, with its
// position-carrying errors, and the gateway-operations work extends the
// schema here rather than in the gateway plugin. The plugin itself
// ([github.com/hookflow/hookflow/plugins/gateway]) knows nothing of files:
// it takes a gateway.Config, as every plugin takes its Config.
//
// It is a package of its own, apart from the plugin, because a program
// that builds its server in Go mounts upstreams with the plugin alone and
// needs none of this; and apart from the command, so that a program of its
// own can serve a configuration file with its own list of plugins. It
// imports no plugin but the gateway: the hookflow command lists the
// first-party plugins' specs.
package host
