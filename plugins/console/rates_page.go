package console

import (
	"net/http"
	"time"
)

func (p *Plugin) ratesPage(w http.ResponseWriter, r *http.Request) {
	p.rates.mu.Lock()
	untold := p.rates.untold
	p.rates.mu.Unlock()
	p.render(w, "rates", struct {
		page
		Window    string
		Charts    []chart
		Untold    uint64
		MaxSeries int
	}{page{"Rates", "rates"}, p.cfg.Window.String(), p.rates.charts(time.Now()), untold, maxSeries})
}
