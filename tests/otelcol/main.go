// Minimal OpenTelemetry Collector used only by faultline's test suite:
// an OTLP receiver (HTTP here) feeding the file exporter, so tests can
// read back exactly what faultline sent. Built and cached by build.sh.
package main

import (
	"fmt"
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func factories() (otelcol.Factories, error) {
	recv, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	exp, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	if err != nil {
		return otelcol.Factories{}, err
	}
	return otelcol.Factories{
		Receivers: recv,
		Exporters: exp,
		Telemetry: otelconftelemetry.NewFactory(),
	}, nil
}

func main() {
	// Profiles are still behind a feature gate; enable it by default
	// (--feature-gates=... on the command line still works and wins).
	if err := featuregate.GlobalRegistry().Set("service.profilesSupport", true); err != nil {
		fmt.Fprintln(os.Stderr, "otelcol:", err)
	}
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "otelcol", Description: "faultline test collector", Version: "test"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{
					fileprovider.NewFactory(),
					envprovider.NewFactory(),
				},
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		os.Exit(1)
	}
}
