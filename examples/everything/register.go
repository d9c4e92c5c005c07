package main

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookflow/hookflow/flows"
	"github.com/hookflow/hookflow/framework"
	"github.com/hookflow/hookflow/scope"
	"github.com/hookflow/hookflow/stages"
)

// RegisterHookflow adds the package's hookflow entities and external hooks
// to r (a *framework.Server or *framework.App).
//
// It is written by hand in the exact shape hookgen generates (external hooks
// first, then tools, resources, templates and prompts, each sorted by name),
// so that it can be replaced by //mcp: and //hook: directives on the types
// and a generated hookgen_gen.go. Two inputs have no directive yet: the raw
// input schemas of json_schema_2020_12_tool and test_x_mcp_header
// (jsonSchema2020, xMCPHeaderSchema), which must reach clients unchanged.
func RegisterHookflow(r framework.Registrar) error {
	return errors.Join(
		framework.AddHooks(r,
			scope.Hook{Flow: flows.SessionInitialize, Stage: stages.AfterExecute, Name: "AdvertiseHooks",
				Fn: framework.HookFunc(AdvertiseHooks, func(c *flows.Context) flows.Initialize { return flows.Initialize{Context: c} })},
		),
		framework.AddTool(r, framework.Tool[JSONSchema2020, json.RawMessage, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)", InputSchema: jsonSchema2020},
			Execute: JSONSchema2020.Execute,
		}),
		framework.AddTool(r, framework.Tool[AudioContent, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_audio_content", Description: "Tests audio content response"},
			Execute: AudioContent.Execute,
		}),
		framework.AddTool(r, framework.Tool[Elicitation, ElicitationIn, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_elicitation", Description: "Tests server-initiated elicitation (user input request)"},
			Execute: Elicitation.Execute,
		}),
		framework.AddTool(r, framework.Tool[ElicitationDefaults, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Tests elicitation with default values per SEP-1034"},
			Execute: ElicitationDefaults.Execute,
		}),
		framework.AddTool(r, framework.Tool[ElicitationEnums, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Tests elicitation with enum schema improvements per SEP-1330"},
			Execute: ElicitationEnums.Execute,
		}),
		framework.AddTool(r, framework.Tool[EmbeddedResource, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_embedded_resource", Description: "Tests embedded resource content response"},
			Execute: EmbeddedResource.Execute,
		}),
		framework.AddTool(r, framework.Tool[ErrorHandling, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_error_handling", Description: "Tests error response handling"},
			Execute: ErrorHandling.Execute,
		}),
		framework.AddTool(r, framework.Tool[ImageContent, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_image_content", Description: "Tests image content response"},
			Execute: ImageContent.Execute,
		}),
		framework.AddTool(r, framework.Tool[MRTRCapabilities, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_input_required_result_capabilities", Description: "MRTR (SEP-2322): only requests input kinds the declared client capabilities cover"},
			Execute: MRTRCapabilities.Execute,
		}),
		framework.AddTool(r, framework.Tool[MRTRElicitation, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_input_required_result_elicitation", Description: "MRTR (SEP-2322): asks for the caller name via an in-band elicitation request"},
			Execute: MRTRElicitation.Execute,
		}),
		framework.AddTool(r, framework.Tool[MRTRListRoots, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_input_required_result_list_roots", Description: "MRTR (SEP-2322): asks for the client roots via an in-band roots/list request"},
			Execute: MRTRListRoots.Execute,
		}),
		framework.AddTool(r, framework.Tool[MRTRMultiRound, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_input_required_result_multi_round", Description: "MRTR (SEP-2322): two elicitation rounds with evolving requestState before completing"},
			Execute: MRTRMultiRound.Execute,
		}),
		framework.AddTool(r, framework.Tool[MRTRMultipleInputs, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_input_required_result_multiple_inputs", Description: "MRTR (SEP-2322): asks for elicitation, sampling and roots input in a single round"},
			Execute: MRTRMultipleInputs.Execute,
		}),
		framework.AddTool(r, framework.Tool[MRTRRequestState, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_input_required_result_request_state", Description: "MRTR (SEP-2322): round-trips integrity-protected requestState alongside an elicitation request"},
			Execute: MRTRRequestState.Execute,
		}),
		framework.AddTool(r, framework.Tool[MRTRSampling, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_input_required_result_sampling", Description: "MRTR (SEP-2322): asks for an LLM completion via an in-band sampling request"},
			Execute: MRTRSampling.Execute,
		}),
		framework.AddTool(r, framework.Tool[MRTRTamperedState, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_input_required_result_tampered_state", Description: "MRTR (SEP-2322): rejects retries whose requestState fails integrity verification"},
			Execute: MRTRTamperedState.Execute,
		}),
		framework.AddTool(r, framework.Tool[LoggingTool, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_logging_tool", Description: "Attempts to emit a log message; the framework must drop it when the client did not set _meta.../logLevel (SEP-2575)"},
			Execute: LoggingTool.Execute,
		}),
		framework.AddTool(r, framework.Tool[MissingCapability, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_missing_capability", Description: "Requires the sampling client capability; used to verify MissingRequiredClientCapabilityError (-32021) (SEP-2575)"},
			Execute: MissingCapability.Execute,
		}),
		framework.AddTool(r, framework.Tool[MultipleContentTypes, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_multiple_content_types", Description: "Tests response with multiple content types (text, image, resource)"},
			Execute: MultipleContentTypes.Execute,
		}),
		framework.AddTool(r, framework.Tool[Reconnection, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_reconnection", Description: "Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call and send the result after client reconnects."},
			Execute: Reconnection.Execute,
		}),
		framework.AddTool(r, framework.Tool[Sampling, SamplingIn, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_sampling", Description: "Tests server-initiated sampling (LLM completion request)"},
			Execute: Sampling.Execute,
		}),
		framework.AddTool(r, framework.Tool[SimpleText, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_simple_text", Description: "Tests simple text content response"},
			Execute: SimpleText.Execute,
		}),
		framework.AddTool(r, framework.Tool[StreamingElicitation, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_streaming_elicitation", Description: "Streams progress notifications while a call is in flight; used to verify response streams carry only notifications, never independent JSON-RPC requests (SEP-2575)"},
			Execute: StreamingElicitation.Execute,
		}),
		framework.AddTool(r, framework.Tool[ToolWithLogging, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_tool_with_logging", Description: "Tests tool that emits log messages during execution"},
			Execute: ToolWithLogging.Execute,
		}),
		framework.AddTool(r, framework.Tool[ToolWithProgress, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_tool_with_progress", Description: "Tests tool that reports progress notifications"},
			Execute: ToolWithProgress.Execute,
		}),
		framework.AddTool(r, framework.Tool[*TriggerPromptChange, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_trigger_prompt_change", Description: "Mutates the prompt list to trigger a notifications/prompts/list_changed on active subscription streams (SEP-2575)"},
			New:     NewTriggerPromptChange,
			Execute: (*TriggerPromptChange).Execute,
		}),
		framework.AddTool(r, framework.Tool[*TriggerToolChange, any, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_trigger_tool_change", Description: "Mutates the tool list to trigger a notifications/tools/list_changed on active subscription streams (SEP-2575)"},
			New:     NewTriggerToolChange,
			Execute: (*TriggerToolChange).Execute,
		}),
		framework.AddTool(r, framework.Tool[XMCPHeader, XMCPHeaderIn, *mcp.CallToolResult]{
			Tool:    &mcp.Tool{Name: "test_x_mcp_header", Description: "Tests SEP-2243 Mcp-Param-* server-side validation", InputSchema: xMCPHeaderSchema},
			Execute: XMCPHeader.Execute,
		}),
		framework.AddResource(r, framework.Resource[StaticBinary]{
			Resource: &mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A static binary resource (image) for testing", MIMEType: "image/png"},
			Read:     StaticBinary.Read,
		}),
		framework.AddResource(r, framework.Resource[StaticText]{
			Resource: &mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "A static text resource for testing", MIMEType: "text/plain"},
			Read:     StaticText.Read,
		}),
		framework.AddResource(r, framework.Resource[WatchedResource]{
			Resource: &mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource that auto-updates every 3 seconds", MIMEType: "text/plain"},
			Read:     WatchedResource.Read,
		}),
		framework.AddResource(r, framework.Resource[DataTemplate]{
			Template: &mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template", Description: "A resource template with parameter substitution", MIMEType: "application/json"},
			Read:     DataTemplate.Read,
		}),
		framework.AddPrompt(r, framework.Prompt[MRTRPrompt]{
			Prompt: &mcp.Prompt{Name: "test_input_required_result_prompt", Description: "MRTR (SEP-2322): asks for context via an in-band elicitation request"},
			Get:    MRTRPrompt.Get,
		}),
		framework.AddPrompt(r, framework.Prompt[PromptWithArguments]{
			Prompt: &mcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments", Arguments: []*mcp.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true}, {Name: "arg2", Description: "Second test argument", Required: true}}},
			Get:    PromptWithArguments.Get,
		}),
		framework.AddPrompt(r, framework.Prompt[PromptWithEmbeddedResource]{
			Prompt: &mcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that includes an embedded resource", Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
			Get:    PromptWithEmbeddedResource.Get,
		}),
		framework.AddPrompt(r, framework.Prompt[PromptWithImage]{
			Prompt: &mcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content"},
			Get:    PromptWithImage.Get,
		}),
		framework.AddPrompt(r, framework.Prompt[SimplePrompt]{
			Prompt: &mcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments"},
			Get:    SimplePrompt.Get,
		}),
	)
}

// hookgen: if this does not compile, a type or method that hookgen wired up was
// renamed or deleted, or its signature changed: re-run "go generate".
var _ = [...]any{
	AdvertiseHooks,
	JSONSchema2020.Execute,
	AudioContent.Execute,
	Elicitation.Execute,
	ElicitationDefaults.Execute,
	ElicitationEnums.Execute,
	EmbeddedResource.Execute,
	ErrorHandling.Execute,
	ImageContent.Execute,
	MRTRCapabilities.Execute,
	MRTRElicitation.Execute,
	MRTRListRoots.Execute,
	MRTRMultiRound.Execute,
	MRTRMultipleInputs.Execute,
	MRTRRequestState.Execute,
	MRTRSampling.Execute,
	MRTRTamperedState.Execute,
	LoggingTool.Execute,
	MissingCapability.Execute,
	MultipleContentTypes.Execute,
	Reconnection.Execute,
	Sampling.Execute,
	SimpleText.Execute,
	StreamingElicitation.Execute,
	ToolWithLogging.Execute,
	ToolWithProgress.Execute,
	(*TriggerPromptChange).Execute,
	(*TriggerToolChange).Execute,
	XMCPHeader.Execute,
	StaticBinary.Read,
	StaticText.Read,
	WatchedResource.Read,
	DataTemplate.Read,
	MRTRPrompt.Get,
	PromptWithArguments.Get,
	PromptWithEmbeddedResource.Get,
	PromptWithImage.Get,
	SimplePrompt.Get,
}
