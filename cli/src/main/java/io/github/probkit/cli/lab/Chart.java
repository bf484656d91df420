package io.github.probkit.cli.lab;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.AttributedString;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.LogTick;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.TickType;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;

/**
 * An x-y chart of measured points (with their acceptance intervals as error bars) against theory
 * curves, written as a PNG through JFreeChart. On a log axis, points at or below zero are left out
 * (a rate of 0 measured has no place on it) and error bars are clipped to the axis.
 */
final class Chart {
  static final int WIDTH = 760;
  static final int HEIGHT = 460;

  private static final Paint[] PALETTE = {
    new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
    new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf),
    new Color(0x7f7f7f), new Color(0xbcbd22),
  };

  private enum Style {
    LINE,
    DASHED,
    POINTS
  }

  private static final class Series {
    final String label;
    final Style style;
    final double[] x;
    final double[] y;
    final double[] lo;
    final double[] hi;
    final int colour;

    Series(
        String label, Style style, double[] x, double[] y, double[] lo, double[] hi, int colour) {
      this.label = label;
      this.style = style;
      this.x = x;
      this.y = y;
      this.lo = lo;
      this.hi = hi;
      this.colour = colour;
    }
  }

  final String name;
  final String title;
  private final String xLabel;
  private final String yLabel;
  private boolean logX;
  private boolean logY;
  private final List<Series> series = new ArrayList<>();
  private final List<double[]> markers = new ArrayList<>();
  private final List<String> markerLabels = new ArrayList<>();
  private int nextColour;
  private boolean joined;

  private Chart(String name, String title, String xLabel, String yLabel) {
    this.name = name;
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
  }

  /** A chart written as {@code NAME.png}; name it after the experiment ("bloom-fpr-bits"). */
  static Chart xy(String name, String title, String xLabel, String yLabel) {
    return new Chart(name, title, xLabel, yLabel);
  }

  Chart logX() {
    logX = true;
    return this;
  }

  Chart logY() {
    logY = true;
    return this;
  }

  /** A theory curve: a solid line. */
  Chart line(String label, double[] x, double[] y) {
    return add(new Series(label, Style.LINE, x, y, null, null, nextColour++));
  }

  /** A bound or band edge: a dashed line in the colour of the previous series. */
  Chart dashed(String label, double[] x, double[] y) {
    return add(new Series(label, Style.DASHED, x, y, null, null, Math.max(0, nextColour - 1)));
  }

  /** A dashed line in a colour of its own. */
  Chart dashedOwn(String label, double[] x, double[] y) {
    return add(new Series(label, Style.DASHED, x, y, null, null, nextColour++));
  }

  /** Measured points; {@code lo}/{@code hi} (may be null) are drawn as error bars. */
  Chart points(String label, double[] x, double[] y, double[] lo, double[] hi) {
    return add(new Series(label, Style.POINTS, x, y, lo, hi, nextColour++));
  }

  /** Joins the measured points of each series with a thin line (for a few points along x). */
  Chart joinPoints() {
    joined = true;
    return this;
  }

  /** A vertical line at {@code x} with a label. */
  Chart verticalMarker(double x, String label) {
    markers.add(new double[] {x});
    markerLabels.add(label);
    return this;
  }

  private Chart add(Series s) {
    if (s.x.length != s.y.length) {
      throw new IllegalArgumentException(
          "series " + s.label + ": " + s.x.length + " x values, " + s.y.length + " y values");
    }
    series.add(s);
    return this;
  }

  /** Renders the chart and writes {@code dir/NAME.png}; returns the file. */
  Path write(Path dir) throws IOException {
    Path file = dir.resolve(name + ".png");
    Path tmp = dir.resolve(name + ".png.tmp");
    ChartUtils.saveChartAsPNG(tmp.toFile(), render(), WIDTH, HEIGHT);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return file;
  }

  JFreeChart render() {
    XYPlot plot = new XYPlot();
    plot.setDomainAxis(axis(xLabel, logX, span(true), integral(true)));
    plot.setRangeAxis(axis(yLabel, logY, span(false), integral(false)));
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
    plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
    int index = 0;
    for (Series s : series) {
      Paint paint = PALETTE[s.colour % PALETTE.length];
      if (s.style == Style.POINTS) {
        YIntervalSeries d = new YIntervalSeries(s.label, false, true);
        for (int i = 0; i < s.x.length; i++) {
          if (plottable(s.x[i], logX) && plottable(s.y[i], logY)) {
            double lo = s.lo == null ? s.y[i] : s.lo[i];
            double hi = s.hi == null ? s.y[i] : s.hi[i];
            if (logY) {
              lo = lo > 0 ? lo : s.y[i];
            }
            d.add(s.x[i], s.y[i], lo, hi);
          }
        }
        XYErrorRenderer r = new XYErrorRenderer();
        r.setDrawXError(false);
        r.setDrawYError(s.lo != null);
        r.setDefaultLinesVisible(joined);
        r.setSeriesStroke(0, new BasicStroke(1f));
        r.setDefaultShapesVisible(true);
        r.setSeriesShape(0, new Ellipse2D.Double(-3.5, -3.5, 7, 7));
        r.setSeriesPaint(0, paint);
        r.setErrorPaint(paint);
        YIntervalSeriesCollection c = new YIntervalSeriesCollection();
        c.addSeries(d);
        plot.setDataset(index, c);
        plot.setRenderer(index, r);
      } else {
        XYSeries d = new XYSeries(s.label, false, true);
        for (int i = 0; i < s.x.length; i++) {
          if (plottable(s.x[i], logX) && plottable(s.y[i], logY)) {
            d.add(s.x[i], s.y[i]);
          }
        }
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        r.setSeriesPaint(0, paint);
        r.setSeriesStroke(
            0,
            s.style == Style.DASHED
                ? new BasicStroke(
                    1.5f,
                    BasicStroke.CAP_BUTT,
                    BasicStroke.JOIN_ROUND,
                    1f,
                    new float[] {6f, 4f},
                    0f)
                : new BasicStroke(2f));
        plot.setDataset(index, new XYSeriesCollection(d));
        plot.setRenderer(index, r);
      }
      index++;
    }
    for (int i = 0; i < markers.size(); i++) {
      ValueMarker m =
          new ValueMarker(
              markers.get(i)[0],
              Color.GRAY,
              new BasicStroke(
                  1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {2f, 3f}, 0f));
      m.setLabel(markerLabels.get(i));
      m.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
      m.setLabelOffset(new RectangleInsets(8, 8, 8, 8));
      m.setLabelAnchor(org.jfree.chart.ui.RectangleAnchor.TOP_RIGHT);
      m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
      plot.addDomainMarker(m);
    }
    JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 15), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    chart.setAntiAlias(true);
    chart.setTextAntiAlias(true);
    return chart;
  }

  /**
   * Tick labels with three significant digits and no exponent between 1e-4 and 1e7: 0.0316, 1e-6.
   */
  private static final class SignificantFormat extends NumberFormat {
    private static final long serialVersionUID = 1L;

    @Override
    public StringBuffer format(double v, StringBuffer to, FieldPosition pos) {
      if (v == 0) {
        return to.append('0');
      }
      double a = Math.abs(v);
      if (a < 1e-4 || a >= 1e7) {
        int e = (int) Math.floor(Math.log10(a) + 1e-9);
        double mantissa = v / Math.pow(10, e);
        String m =
            new BigDecimal(mantissa).round(new MathContext(3)).stripTrailingZeros().toPlainString();
        return to.append(m.equals("1") ? "" : m + "x").append("1e").append(e);
      }
      return to.append(
          new BigDecimal(v).round(new MathContext(3)).stripTrailingZeros().toPlainString());
    }

    @Override
    public StringBuffer format(long v, StringBuffer to, FieldPosition pos) {
      return to.append(v);
    }

    @Override
    public Number parse(String source, ParsePosition pos) {
      throw new UnsupportedOperationException("tick labels are not parsed");
    }
  }

  private static boolean plottable(double v, boolean log) {
    return Double.isFinite(v) && (!log || v > 0);
  }

  /** The decades the plotted values of one axis span (for choosing log-axis ticks). */
  private double span(boolean x) {
    double min = Double.POSITIVE_INFINITY;
    double max = 0;
    for (Series s : series) {
      for (double v : x ? s.x : s.y) {
        if (v > 0 && Double.isFinite(v)) {
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
      }
    }
    return max > 0 ? Math.log10(max / min) : 0;
  }

  /**
   * Whether every plotted value of one axis is a whole number (then its ticks are whole numbers).
   */
  private boolean integral(boolean x) {
    for (Series s : series) {
      for (double v : x ? s.x : s.y) {
        if (v != Math.rint(v)) {
          return false;
        }
      }
    }
    return true;
  }

  private static ValueAxis axis(String label, boolean log, double decades, boolean integers) {
    if (log) {
      LogAxis a = decades >= 2 ? new LogAxis(label) : new FineLogAxis(label);
      a.setBase(10);
      a.setSmallestValue(1e-12);
      a.setNumberFormatOverride(new SignificantFormat());
      a.setMinorTickMarksVisible(true);
      if (decades >= 2) {
        // one label per decade; JFreeChart's automatic choice puts labels at half decades
        a.setTickUnit(new NumberTickUnit(decades > 8 ? 2 : 1), false, false);
        a.setAutoTickUnitSelection(false);
      }
      return a;
    }
    NumberAxis a = new NumberAxis(label);
    a.setAutoRangeIncludesZero(false);
    if (integers) {
      a.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    }
    return a;
  }

  /** A log axis over less than two decades, labelled at 1, 2 and 5 times the powers of ten. */
  private static final class FineLogAxis extends LogAxis {
    private static final long serialVersionUID = 1L;

    FineLogAxis(String label) {
      super(label);
    }

    @Override
    protected List<ValueTick> refreshTicksVertical(
        Graphics2D g2, Rectangle2D dataArea, RectangleEdge edge) {
      return ticks(TextAnchor.CENTER_RIGHT);
    }

    @Override
    protected List<ValueTick> refreshTicksHorizontal(
        Graphics2D g2, Rectangle2D dataArea, RectangleEdge edge) {
      return ticks(TextAnchor.TOP_CENTER);
    }

    private List<ValueTick> ticks(TextAnchor anchor) {
      List<ValueTick> ticks = new ArrayList<>();
      double lo = getLowerBound();
      double hi = getUpperBound();
      NumberFormat format = getNumberFormatOverride();
      for (int e = (int) Math.floor(Math.log10(lo)); e <= (int) Math.ceil(Math.log10(hi)); e++) {
        for (int m : new int[] {1, 2, 5}) {
          double v = m * Math.pow(10, e);
          if (v >= lo && v <= hi) {
            ticks.add(
                new LogTick(TickType.MAJOR, v, new AttributedString(format.format(v)), anchor));
          }
        }
      }
      return ticks;
    }
  }
}
